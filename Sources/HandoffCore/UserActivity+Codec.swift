#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The activity as a property-list dictionary: the one form used on disk and on the wire.
extension UserActivity {
    enum Field {
        static let id = "id", version = "version", type = "type", title = "title"
        static let userInfo = "userInfo", required = "required", target = "target"
        static let webpageURL = "webpageURL", referrerURL = "referrerURL", keywords = "keywords"
        static let expires = "expires", handoff = "handoff", search = "search"
        static let persistentID = "persistentID", needsSave = "needsSave"
        static let streams = "streams"
    }

    public var propertyList: PropertyListValue {
        let fields = orderedFields
        // Made with its capacity and filled: `Dictionary(uniqueKeysWithValues:)` took twice the
        // instructions of the literal it replaced (callgrind, a push's handler line).
        var d = [String: PropertyListValue](minimumCapacity: fields.count)
        for (key, value) in fields { d[key] = value }
        return .dictionary(d)
    }

    /// The fields in canonical key order (UTF-8 byte order), the absent optional ones left out:
    /// the one list the property-list form and the canonical writing (`CanonicalEncoder`, with
    /// no dictionary built and sorted) are both made from. `OrderedEncodingTests` holds it to
    /// that order and to every field's value.
    public var orderedFields: [(key: String, value: PropertyListValue)] {
        var f: [(key: String, value: PropertyListValue)] = []
        f.reserveCapacity(16)
        if let expirationDate { f.append((Field.expires, .date(expirationDate))) }
        f.append((Field.handoff, .bool(isEligibleForHandoff)))
        f.append((Field.id, .string(id.canonicalString)))
        f.append((Field.keywords, .array(keywords.sorted().map(PropertyListValue.string))))
        f.append((Field.needsSave, .bool(needsSave)))
        if let persistentIdentifier { f.append((Field.persistentID, .string(persistentIdentifier))) }
        if let referrerURL { f.append((Field.referrerURL, .string(referrerURL.absoluteString))) }
        f.append((Field.required, .array(requiredUserInfoKeys.sorted().map(PropertyListValue.string))))
        f.append((Field.search, .bool(isEligibleForSearch)))
        // Written only when set: activities without streams keep the bytes (and test vectors) of before.
        if supportsContinuationStreams { f.append((Field.streams, .bool(true))) }
        if let targetContentIdentifier { f.append((Field.target, .string(targetContentIdentifier))) }
        if let title { f.append((Field.title, .string(title))) }
        f.append((Field.type, .string(type.rawValue)))
        f.append((Field.userInfo, .dictionary(userInfo)))
        f.append((Field.version, .integer(Int64(bitPattern: version))))
        if let webpageURL { f.append((Field.webpageURL, .string(webpageURL.absoluteString))) }
        return f
    }

    /// Rebuilds an activity from its property-list form, checking every field's kind.
    public init(propertyList: PropertyListValue) throws(CodecError) {
        let f = try FieldReader(propertyList)
        let rawType = try f.string(Field.type)
        let type: ActivityType
        do throws(ActivityError) { type = try ActivityType(rawType) } catch {
            throw .field(Field.type, problem: error.description)
        }
        guard let id = UUID(canonical: try f.string(Field.id)) else {
            throw .field(Field.id, problem: "not a UUID")
        }
        self.init(type: type, id: id, title: try f.optionalString(Field.title))
        let info = try f.dictionary(Field.userInfo)
        setUserInfoUnchecked(info)
        requiredUserInfoKeys = Set(try f.stringArray(Field.required))
        keywords = Set(try f.stringArray(Field.keywords))
        targetContentIdentifier = try f.optionalString(Field.target)
        if let page = try f.optionalString(Field.webpageURL) {
            do throws(ActivityError) { try setWebpageURL(URL(string: page)) } catch {
                throw .field(Field.webpageURL, problem: error.description)
            }
            if webpageURL == nil { throw .field(Field.webpageURL, problem: "not a URL") }
        }
        if let referrer = try f.optionalString(Field.referrerURL) {
            guard let url = URL(string: referrer) else { throw .field(Field.referrerURL, problem: "not a URL") }
            referrerURL = url
        }
        expirationDate = try f.optionalDate(Field.expires)
        isEligibleForHandoff = try f.bool(Field.handoff)
        isEligibleForSearch = try f.bool(Field.search)
        persistentIdentifier = try f.optionalString(Field.persistentID)
        needsSave = try f.bool(Field.needsSave)
        supportsContinuationStreams = f.fields[Field.streams] == nil ? false : try f.bool(Field.streams)
        let v = try f.integer(Field.version)
        guard v >= 1 else { throw .field(Field.version, problem: "must be at least 1") }
        restoreVersion(UInt64(v))
    }

    /// The canonical bytes of this activity.
    public func encoded(limits: CodecLimits = .default) throws(CodecError) -> Data {
        Data(try CanonicalEncoder(limits: limits).encodedBytes(self))
    }

    /// Decodes untrusted bytes with the bounded decoder.
    public init(decoding data: Data, limits: CodecLimits = .default) throws(CodecError) {
        try self.init(propertyList: BoundedDecoder(limits: limits).decode(data))
    }
}

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
        var d: [String: PropertyListValue] = [
            Field.id: .string(id.canonicalString),
            Field.version: .integer(Int64(bitPattern: version)),
            Field.type: .string(type.rawValue),
            Field.userInfo: .dictionary(userInfo),
            Field.required: .array(requiredUserInfoKeys.sorted().map(PropertyListValue.string)),
            Field.keywords: .array(keywords.sorted().map(PropertyListValue.string)),
            Field.handoff: .bool(isEligibleForHandoff),
            Field.search: .bool(isEligibleForSearch),
            Field.needsSave: .bool(needsSave)
        ]
        if let title { d[Field.title] = .string(title) }
        if let targetContentIdentifier { d[Field.target] = .string(targetContentIdentifier) }
        if let webpageURL { d[Field.webpageURL] = .string(webpageURL.absoluteString) }
        if let referrerURL { d[Field.referrerURL] = .string(referrerURL.absoluteString) }
        if let expirationDate { d[Field.expires] = .date(expirationDate) }
        if let persistentIdentifier { d[Field.persistentID] = .string(persistentIdentifier) }
        // Written only when set: activities without streams keep the bytes (and test vectors) of before.
        if supportsContinuationStreams { d[Field.streams] = .bool(true) }
        return .dictionary(d)
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
        try CanonicalEncoder(limits: limits).encode(propertyList)
    }

    /// Decodes untrusted bytes with the bounded decoder.
    public init(decoding data: Data, limits: CodecLimits = .default) throws(CodecError) {
        try self.init(propertyList: BoundedDecoder(limits: limits).decode(data))
    }
}

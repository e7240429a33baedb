#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

extension PeerMessage {
    /// What a message adds around the activity it carries (`activity`, `push`): its type, id and
    /// keys. The activity limits (`ActivitySizePolicy`, `CodecLimits.default`) leave this much
    /// room, so that every activity that may be published also fits the message that carries it.
    public static let envelopeBytes = 64
    public static let envelopeValues = 8

    /// The limits of one message: an activity's, plus its envelope (one level deeper, a few more
    /// values); no message is larger than a frame anyway.
    public static let limits = CodecLimits(
        maxDepth: CodecLimits.default.maxDepth + 1,
        maxValues: CodecLimits.default.maxValues + envelopeValues,
        maxBytes: CodecLimits.default.maxBytes + envelopeBytes)

    /// The canonical bytes of the message.
    /// A message around an activity is written as given, its keys in order, and the activity
    /// from its fields: the same bytes as `propertyList`'s (`PeerMessageCodecTests`), without
    /// building and sorting the dictionaries on the push's path.
    public func encoded(limits: CodecLimits = PeerMessage.limits) throws(CodecError) -> [UInt8] {
        let encoder = CanonicalEncoder(limits: limits)
        switch self {
        case .push(let id, let activity):
            return try encoder.encodedBytes(ordered: [("activity", .activity(activity)), ("id", .value(.integer(id))), ("type", .value("push"))])
        case .activity(let id, let activity):
            return try encoder.encodedBytes(ordered: [("activity", .activity(activity)), ("id", .value(.integer(id))), ("type", .value("activity"))])
        default:
            return try encoder.encodedBytes(propertyList)
        }
    }

    /// Decodes a peer's bytes with the bounded decoder; every field is checked for its kind.
    public init(decoding bytes: [UInt8], limits: CodecLimits = PeerMessage.limits) throws(PeerProtocolError) {
        let value: PropertyListValue
        do throws(CodecError) { value = try BoundedDecoder(limits: limits).decode(bytes: bytes) } catch { throw .undecodable(error) }
        let parsed: PeerMessage?
        do throws(CodecError) { parsed = try Self.parse(value) } catch {
            if case .field(let name, let problem) = error { throw .badField(name, problem) }
            throw .undecodable(error)
        }
        guard let parsed else { throw .unknownType(value.dictionaryValue?["type"]?.stringValue ?? "") }
        self = parsed
    }

    public var propertyList: PropertyListValue {
        var d: [String: PropertyListValue]
        switch self {
        case .hello(let id, let hello):
            d = [
                "type": "hello", "id": .integer(id), "protocol": .integer(hello.protocolVersion), "device": .string(hello.device),
                "types": .array(hello.types.map(PropertyListValue.string))
            ]
            if let port = hello.port { d["port"] = .integer(port) }
            if !hello.addresses.isEmpty { d["addresses"] = .array(hello.addresses.map(PropertyListValue.string)) }
        case .list(let id):
            d = ["type": "list", "id": .integer(id)]
        case .activities(let id, let items):
            d = ["type": "activities", "id": .integer(id), "items": .array(items.map(\.propertyList))]
        case .fetch(let id, let activityID):
            d = ["type": "fetch", "id": .integer(id), "activity": .string(activityID.canonicalString)]
        case .activity(let id, let activity):
            d = ["type": "activity", "id": .integer(id), "activity": activity.propertyList]
        case .continued(let activityID, let version, let outcome):
            d = ["type": "continued", "activity": .string(activityID.canonicalString), "version": .integer(Int64(bitPattern: version))]
            d.merge(outcome.fields) { $1 }
        case .push(let id, let activity):
            d = ["type": "push", "id": .integer(id), "activity": activity.propertyList]
        case .outcome(let id, let outcome):
            d = ["type": "outcome", "id": .integer(id)]
            d.merge(outcome.fields) { $1 }
        case .changed(let items):
            d = ["type": "changed", "items": .array(items.map(\.propertyList))]
        case .invalidated(let activityID):
            d = ["type": "invalidated", "activity": .string(activityID.canonicalString)]
        case .ping(let id):
            d = ["type": "ping", "id": .integer(id)]
        case .pong(let id):
            d = ["type": "pong", "id": .integer(id)]
        case .goodbye:
            d = ["type": "goodbye"]
        case .streamOpen(let id, let stream, let activityID, let window):
            d = [
                "type": "streamOpen", "id": .integer(id), "stream": .integer(Int64(bitPattern: stream)),
                "activity": .string(activityID.canonicalString), "window": .integer(Int64(window))
            ]
        case .streamAccepted(let id, let stream, let window):
            d = ["type": "streamAccepted", "id": .integer(id), "stream": .integer(Int64(bitPattern: stream)), "window": .integer(Int64(window))]
        case .error(let id, let code, let message):
            d = ["type": "error", "code": .string(code.rawValue), "message": .string(message)]
            if let id { d["id"] = .integer(id) }
        case .clipboard(let message):
            d = message.fields
        }
        return .dictionary(d)
    }

    /// How to answer a message that could not be decoded: not at all when its type asks for no
    /// answer, else an error carrying the request's id when that much is readable.
    public static func errorReply(toUndecodable bytes: [UInt8]) -> (answer: Bool, id: Int64?) {
        guard let d = (try? BoundedDecoder(limits: limits).decode(Data(bytes)))?.dictionaryValue else { return (true, nil) }
        if let type = d["type"]?.stringValue, oneWayTypes.contains(type) { return (false, nil) }
        if case .integer(let id)? = d["id"] { return (true, id) }
        return (true, nil)
    }

    /// The types of the messages that ask for no answer (`isOneWay`).
    static let oneWayTypes: Set<String> = Set([
        "continued", "changed", "invalidated", "goodbye", "error", "activities", "activity", "outcome", "pong", "streamAccepted"
    ]).union(ClipboardMessage.oneWayTypes)

    /// nil for a message type this version does not know.
    static func parse(_ value: PropertyListValue) throws(CodecError) -> PeerMessage? {
        let f = try FieldReader(value)
        let type = try f.string("type")
        func uuid(_ key: String) throws(CodecError) -> UUID {
            guard let u = UUID(canonical: try f.string(key)) else { throw .field(key, problem: "not a UUID") }
            return u
        }
        func summaries() throws(CodecError) -> [ActivitySummary] {
            try f.array("items").map { (v: PropertyListValue) throws(CodecError) in try ActivitySummary(propertyList: v) }
        }
        func window() throws(CodecError) -> UInt32 {
            let w = try f.integer("window")
            guard (1...Int64(UInt32.max)).contains(w) else { throw .field("window", problem: "not a window (1...2^32-1)") }
            return UInt32(w)
        }
        switch type {
        case "hello":
            var port: Int64?
            if f.fields["port"] != nil {
                let p = try f.integer("port")
                guard (1...65_535).contains(p) else { throw .field("port", problem: "not a port (1...65535)") }
                port = p
            }
            let addresses = f.fields["addresses"] == nil ? [] : try f.stringArray("addresses")
            guard addresses.count <= Hello.maxAddresses else { throw .field("addresses", problem: "more than \(Hello.maxAddresses)") }
            guard addresses.allSatisfy({ $0.utf8.count <= Hello.maxAddressBytes }) else {
                throw .field("addresses", problem: "an address longer than \(Hello.maxAddressBytes) bytes")
            }
            let device = try f.string("device")
            guard device.utf8.count <= Hello.maxDeviceBytes else { throw .field("device", problem: "longer than \(Hello.maxDeviceBytes) bytes") }
            let types = try f.stringArray("types")
            guard types.count <= Hello.maxTypes else { throw .field("types", problem: "more than \(Hello.maxTypes)") }
            guard types.allSatisfy({ $0.utf8.count <= Hello.maxTypeBytes }) else {
                throw .field("types", problem: "a type longer than \(Hello.maxTypeBytes) bytes")
            }
            return .hello(
                id: try f.integer("id"),
                Hello(protocolVersion: try f.integer("protocol"), device: device, types: types, port: port, addresses: addresses))
        case "list": return .list(id: try f.integer("id"))
        case "activities": return .activities(id: try f.integer("id"), items: try summaries())
        case "fetch": return .fetch(id: try f.integer("id"), activityID: try uuid("activity"))
        case "activity": return .activity(id: try f.integer("id"), activity: try UserActivity(propertyList: try f.require("activity")))
        case "continued":
            return .continued(
                activityID: try uuid("activity"), version: UInt64(bitPattern: try f.integer("version")),
                outcome: try RemoteOutcome(f))
        case "push": return .push(id: try f.integer("id"), activity: try UserActivity(propertyList: try f.require("activity")))
        case "outcome": return .outcome(id: try f.integer("id"), outcome: try RemoteOutcome(f))
        case "changed": return .changed(items: try summaries())
        case "invalidated": return .invalidated(activityID: try uuid("activity"))
        case "ping": return .ping(id: try f.integer("id"))
        case "pong": return .pong(id: try f.integer("id"))
        case "goodbye": return .goodbye
        case "streamOpen":
            return .streamOpen(
                id: try f.integer("id"), stream: UInt64(bitPattern: try f.integer("stream")), activityID: try uuid("activity"),
                window: try window())
        case "streamAccepted":
            return .streamAccepted(id: try f.integer("id"), stream: UInt64(bitPattern: try f.integer("stream")), window: try window())
        case "error":
            return .error(
                id: f.fields["id"] == nil ? nil : try f.integer("id"), code: FailureCode(try f.string("code")), message: try f.string("message"))
        case let clip where clip.hasPrefix(ClipboardMessage.prefix):
            return try ClipboardMessage.parse(clip, f).map(PeerMessage.clipboard)
        default:
            return nil
        }
    }

    /// A message that asks for no answer: nothing is ever sent back for it, not even an error
    /// (a peer that floods them must not make us write).
    public var isOneWay: Bool {
        switch self {
        case .continued, .changed, .invalidated, .goodbye, .error, .activities, .activity, .outcome, .pong, .streamAccepted: true
        case .hello, .list, .fetch, .push, .ping, .streamOpen: false
        case .clipboard(let message): message.isOneWay
        }
    }

    /// The request id a reply should carry, if the message is a request.
    public var requestID: Int64? {
        switch self {
        case .hello(let id, _), .list(let id), .fetch(let id, _), .push(let id, _), .ping(let id), .streamOpen(let id, _, _, _): id
        case .clipboard(let message): message.requestID
        default: nil
        }
    }
}

extension ActivitySummary {
    public var propertyList: PropertyListValue {
        var d: [String: PropertyListValue] = [
            "activity": .string(activityID.canonicalString), "type": .string(type),
            "version": .integer(Int64(bitPattern: version))
        ]
        if let title { d["title"] = .string(title) }
        if let scene { d["scene"] = .string(scene.canonicalString) }
        if let updated { d["updated"] = .date(updated) }
        return .dictionary(d)
    }

    init(propertyList: PropertyListValue) throws(CodecError) {
        let f = try FieldReader(propertyList)
        guard let id = UUID(canonical: try f.string("activity")) else { throw .field("activity", problem: "not a UUID") }
        var scene: UUID?
        if let s = try f.optionalString("scene") {
            guard let u = UUID(canonical: s) else { throw .field("scene", problem: "not a UUID") }
            scene = u
        }
        self.init(
            activityID: id, type: try f.string("type"), title: try f.optionalString("title"), scene: scene,
            version: UInt64(bitPattern: try f.integer("version")), updated: try f.optionalDate("updated"))
    }
}

extension RemoteOutcome {
    public var fields: [String: PropertyListValue] {
        switch self {
        case .continued: ["outcome": "continued"]
        case .failed(let code, let message): ["outcome": "failed", "code": .string(code.rawValue), "message": .string(message)]
        }
    }

    init(_ f: FieldReader) throws(CodecError) {
        switch try f.string("outcome") {
        case "continued": self = .continued
        case "failed": self = .failed(code: FailureCode(try f.string("code")), message: try f.string("message"))
        case let other: throw .field("outcome", problem: "unknown outcome '\(other)'")
        }
    }
}

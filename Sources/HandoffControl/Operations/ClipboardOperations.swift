#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// The bytes one `clipboard-copy` or `clipboard-paste` carries: base64 in a JSON line, well
/// within the control socket's 256 KiB line.
public enum ClipboardParts {
    public static let maxBytes = 128 * 1024
}

extension Fields {
    func data(_ key: String) throws(ControlError) -> Data {
        guard let v = values[key] else { throw .badArgument(name: key, reason: "missing") }
        guard case .data(let d) = v else { throw .badArgument(name: key, reason: "must be bytes ({\"$data\": base64})") }
        return d
    }
}

/// `clipboard-status`: whether the clipboard is shared, what the session agent uses, whose
/// content this machine's clipboard holds, this machine's offer and each paired machine's.
public struct ClipboardStatusRequest: ControlOperation {
    public typealias Result = ClipboardStatus
    public static let name = "clipboard-status"
    public init() {}
    public init(request: ControlRequest) throws(ControlError) {}
    public var arguments: [String: PropertyListValue] { [:] }
}

/// One offer, this machine's (`peer` nil) or a paired machine's.
public struct ClipboardOfferInfo: ControlItem, Equatable {
    public var offer: UUID
    public var peer: String?
    /// MIME types, each with its size in bytes.
    public var types: [String]
    public var sizes: [Int64]
    public var copied: Date
    /// Seconds left before it may no longer be pasted.
    public var expiresIn: Int64

    public init(offer: UUID, peer: String?, types: [String], sizes: [Int64], copied: Date, expiresIn: Int64) {
        (self.offer, self.peer, self.types, self.sizes, self.copied, self.expiresIn) = (offer, peer, types, sizes, copied, expiresIn)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("offer", offer)
        w.set("peer", peer)
        w["types"] = .array(types.map(PropertyListValue.string))
        w["sizes"] = .array(sizes.map(PropertyListValue.integer))
        w.set("copied", copied)
        w.set("expiresIn", expiresIn)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        let sizes = try f.array("sizes").map { (v: PropertyListValue) throws(ControlError) -> Int64 in
            guard let i = v.integerValue else { throw .badArgument(name: "sizes", reason: "must be integers") }
            return i
        }
        self.init(
            offer: try f.uuid("offer"), peer: try f.optionalString("peer"), types: try f.strings("types"), sizes: sizes,
            copied: try f.date("copied"), expiresIn: try f.integer("expiresIn"))
    }
}

public struct ClipboardStatus: ControlObject, Equatable {
    public var enabled: Bool
    /// What the session agent reported it uses ("x11", "wayland ext-data-control-v1", ...), or
    /// nil when no agent is connected.
    public var backend: String?
    /// Why the agent has no backend, if it said.
    public var backendProblem: String?
    /// Whose content the clipboard holds: "nobody", "this machine" or a paired machine's name.
    public var owner: String
    public var local: ClipboardOfferInfo?
    public var offers: [ClipboardOfferInfo]
    public var maxBytes: Int64
    public var offerSeconds: Int64

    public init(
        enabled: Bool, backend: String?, backendProblem: String?, owner: String, local: ClipboardOfferInfo?, offers: [ClipboardOfferInfo],
        maxBytes: Int64, offerSeconds: Int64
    ) {
        (self.enabled, self.backend, self.backendProblem, self.owner) = (enabled, backend, backendProblem, owner)
        (self.local, self.offers, self.maxBytes, self.offerSeconds) = (local, offers, maxBytes, offerSeconds)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("enabled", enabled)
        w.set("backend", backend)
        w.set("backendProblem", backendProblem)
        w.set("owner", owner)
        w["local"] = local?.object
        w["offers"] = .array(offers.map(\.object))
        w.set("maxBytes", maxBytes)
        w.set("offerSeconds", offerSeconds)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            enabled: try f.bool("enabled"), backend: try f.optionalString("backend"), backendProblem: try f.optionalString("backendProblem"),
            owner: try f.string("owner"),
            local: try f.values["local"].map { (v: PropertyListValue) throws(ControlError) in try ClipboardOfferInfo(object: v) },
            offers: try f.array("offers").map { (v: PropertyListValue) throws(ControlError) in try ClipboardOfferInfo(object: v) },
            maxBytes: try f.integer("maxBytes"), offerSeconds: try f.integer("offerSeconds"))
    }
}

/// `clipboard-copy`: a copy on this machine, offered to the paired machines. A copy larger than
/// one request goes in parts of one `copy` id: each part adds bytes to its types, and the part
/// with `last` makes the offer. Refused with `clipboard-secret`, `clipboard-echo`, `too-large`,
/// `clipboard-nothing-shared` or `clipboard-off`.
public struct ClipboardCopyRequest: ControlOperation {
    public typealias Result = ClipboardCopied
    public static let name = "clipboard-copy"
    public static let maxItems = 16
    public var copy: UUID
    public var items: [(type: String, bytes: Data)]
    public var last: Bool

    public init(copy: UUID, items: [(type: String, bytes: Data)], last: Bool) { (self.copy, self.items, self.last) = (copy, items, last) }

    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        copy = try f.uuid("copy")
        last = try f.optionalBool("last") ?? true
        let list = try f.array("items")
        guard list.count <= Self.maxItems else { throw .badArgument(name: "items", reason: "at most \(Self.maxItems)") }
        items = try list.map { (v: PropertyListValue) throws(ControlError) in
            let item = try Fields(v)
            let type = try item.string("mime")
            guard !type.isEmpty, type.utf8.count <= 128 else { throw .badArgument(name: "mime", reason: "must be a MIME type of 1 to 128 bytes") }
            return (type, try item.data("data"))
        }
        guard items.reduce(0, { $0 + $1.bytes.count }) <= ClipboardParts.maxBytes else {
            throw .badArgument(name: "items", reason: "at most \(ClipboardParts.maxBytes) bytes a request; send the rest in more parts")
        }
    }

    public var arguments: [String: PropertyListValue] {
        [
            "copy": .string(copy.canonicalString), "last": .bool(last),
            "items": .array(items.map { .dictionary(["mime": .string($0.type), "data": .data($0.bytes)]) })
        ]
    }
}

/// The answer to a copy's part: the offer once the last part is in.
public struct ClipboardCopied: ControlObject, Equatable {
    public var offer: UUID?
    /// Bytes held for the copy so far (all its types).
    public var bytes: Int64
    public init(offer: UUID?, bytes: Int64) { (self.offer, self.bytes) = (offer, bytes) }
    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("offer", offer)
        w.set("bytes", bytes)
        return w.object
    }
    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(offer: try f.optionalUUID("offer"), bytes: try f.integer("bytes"))
    }
}

/// `clipboard-paste`: a part of the bytes of the clipboard's content (or of `peer`'s offer), of
/// `mime` (default: the first shared type it has, text first), from `offset`. The first part
/// fetches the whole type from its machine; the next parts come from here.
public struct ClipboardPasteRequest: ControlOperation {
    public typealias Result = ClipboardPart
    public static let name = "clipboard-paste"
    /// Bounded by handoffd: a fetch from a paired machine that does not answer in time fails.
    public var answerWithin: Duration? { .seconds(60) }
    public var peer: String?
    public var mime: String?
    public var offset: Int64

    public init(peer: String? = nil, mime: String? = nil, offset: Int64 = 0) { (self.peer, self.mime, self.offset) = (peer, mime, offset) }

    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        peer = try f.optionalString("peer").flatMap { $0.isEmpty ? nil : $0 }
        mime = try f.optionalString("mime").flatMap { $0.isEmpty ? nil : $0 }
        offset = try f.optionalInteger("offset") ?? 0
        guard offset >= 0 else { throw .badArgument(name: "offset", reason: "must be 0 or more") }
    }

    public var arguments: [String: PropertyListValue] {
        var w = FieldWriter()
        w.set("peer", peer)
        w.set("mime", mime)
        w.set("offset", offset)
        return w.values
    }
}

public struct ClipboardPart: ControlObject, Equatable {
    /// The machine the content came from (nil: this one).
    public var peer: String?
    public var offer: UUID
    public var mime: String
    public var total: Int64
    public var offset: Int64
    public var data: Data

    public init(peer: String?, offer: UUID, mime: String, total: Int64, offset: Int64, data: Data) {
        (self.peer, self.offer, self.mime, self.total, self.offset, self.data) = (peer, offer, mime, total, offset, data)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("peer", peer)
        w.set("offer", offer)
        w.set("mime", mime)
        w.set("total", total)
        w.set("offset", offset)
        w["data"] = .data(data)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            peer: try f.optionalString("peer"), offer: try f.uuid("offer"), mime: try f.string("mime"), total: try f.integer("total"),
            offset: try f.integer("offset"), data: try f.data("data"))
    }
}

/// `clipboard-switch`: turns the shared clipboard on or off on this machine (kept across
/// restarts); off withdraws this machine's offer and forgets the others'.
public struct ClipboardSwitchRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "clipboard-switch"
    public var enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }
    public init(request: ControlRequest) throws(ControlError) { enabled = try request.fields.bool("enabled") }
    public var arguments: [String: PropertyListValue] { ["enabled": .bool(enabled)] }
}

/// `clipboard-agent`: the session agent says which display clipboard it watches (`backend`), or
/// why it has none (`problem`); it is the agent until its connection ends.
public struct ClipboardAgentRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "clipboard-agent"
    public var backend: String?
    public var problem: String?
    public init(backend: String?, problem: String? = nil) { (self.backend, self.problem) = (backend, problem) }
    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        backend = try f.optionalString("backend")
        problem = try f.optionalString("problem")
        for (key, value) in [("backend", backend), ("problem", problem)] where (value?.utf8.count ?? 0) > 256 {
            throw .badArgument(name: key, reason: "must be at most 256 bytes")
        }
    }
    public var arguments: [String: PropertyListValue] {
        var w = FieldWriter()
        w.set("backend", backend)
        w.set("problem", problem)
        return w.values
    }
}

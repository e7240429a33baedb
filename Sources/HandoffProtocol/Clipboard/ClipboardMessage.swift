#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// The shared clipboard's messages between paired machines (docs/PROTOCOL.md, "Clipboard"): a
/// copy is announced (`offer`), withdrawn when it may no longer be pasted, and its bytes are
/// fetched a part at a time only when someone pastes.
public enum ClipboardMessage: Sendable, Equatable {
    /// This machine's newest copy; it replaces the sender's earlier offer.
    case offer(ClipboardOffer)
    /// The sender's offer may no longer be pasted (expired, turned off, or the machine's
    /// clipboard now holds someone else's copy).
    case withdrawn(offerID: UUID)
    /// Asks for the bytes of one type of an offer from `offset`; answered with `data` or `error`.
    case fetch(id: Int64, offerID: UUID, type: ClipboardType, offset: UInt64)
    /// A part of the bytes: at most `maxPart`, starting at `offset` of `total`.
    case data(id: Int64, total: UInt64, offset: UInt64, bytes: [UInt8])

    /// The type a machine declares in its hello when its clipboard is shared: offers go only to
    /// machines that declared it.
    public static let capability = "org.handoffd.clipboard"
    /// The bytes of one `data`: with its envelope and the link's own overhead it fits a 64 KiB frame.
    public static let maxPart = 60_000

    static let prefix = "clip-"

    var fields: [String: PropertyListValue] {
        switch self {
        case .offer(let offer):
            return [
                "type": "clip-offer", "offer": .string(offer.id.canonicalString), "hash": .data(Data(offer.hash)),
                "at": .date(offer.copiedAt),
                "items": .array(offer.items.map { .dictionary(["mime": .string($0.type.rawValue), "size": .integer(Int64($0.size))]) })
            ]
        case .withdrawn(let offerID):
            return ["type": "clip-withdrawn", "offer": .string(offerID.canonicalString)]
        case .fetch(let id, let offerID, let type, let offset):
            return [
                "type": "clip-fetch", "id": .integer(id), "offer": .string(offerID.canonicalString), "mime": .string(type.rawValue),
                "offset": .integer(Int64(offset))
            ]
        case .data(let id, let total, let offset, let bytes):
            return [
                "type": "clip-data", "id": .integer(id), "total": .integer(Int64(total)), "offset": .integer(Int64(offset)),
                "bytes": .data(Data(bytes))
            ]
        }
    }

    static func parse(_ type: String, _ f: FieldReader) throws(CodecError) -> ClipboardMessage? {
        func offerID() throws(CodecError) -> UUID {
            guard let u = UUID(canonical: try f.string("offer")) else { throw .field("offer", problem: "not a UUID") }
            return u
        }
        func count(_ key: String) throws(CodecError) -> UInt64 {
            let n = try f.integer(key)
            guard n >= 0 else { throw .field(key, problem: "negative") }
            return UInt64(n)
        }
        func mime(_ value: String) throws(CodecError) -> ClipboardType {
            guard !value.isEmpty, value.utf8.count <= 128 else { throw .field("mime", problem: "not a MIME type of 1 to 128 bytes") }
            return ClipboardType(value)
        }
        switch type {
        case "clip-offer":
            guard case .data(let hash)? = f.fields["hash"], hash.count == ClipboardOffer.hashBytes else {
                throw .field("hash", problem: "not \(ClipboardOffer.hashBytes) bytes")
            }
            guard let at = try f.optionalDate("at") else { throw .field("at", problem: "missing") }
            let list = try f.array("items")
            guard (1...ClipboardOffer.maxItems).contains(list.count) else {
                throw .field("items", problem: "not 1 to \(ClipboardOffer.maxItems) types")
            }
            var items: [OfferedItem] = []
            for v in list {
                let item = try FieldReader(v)
                let size = try item.integer("size")
                guard size >= 0 else { throw .field("size", problem: "negative") }
                items.append(OfferedItem(type: try mime(try item.string("mime")), size: UInt64(size)))
            }
            return .offer(ClipboardOffer(id: try offerID(), items: items, hash: [UInt8](hash), copiedAt: at))
        case "clip-withdrawn":
            return .withdrawn(offerID: try offerID())
        case "clip-fetch":
            return .fetch(id: try f.integer("id"), offerID: try offerID(), type: try mime(try f.string("mime")), offset: try count("offset"))
        case "clip-data":
            guard case .data(let bytes)? = f.fields["bytes"], bytes.count <= maxPart else {
                throw .field("bytes", problem: "missing or over \(maxPart) bytes")
            }
            let total = try count("total"), offset = try count("offset")
            guard offset + UInt64(bytes.count) <= total else { throw .field("offset", problem: "past the total") }
            return .data(id: try f.integer("id"), total: total, offset: offset, bytes: [UInt8](bytes))
        default:
            return nil
        }
    }

    var isOneWay: Bool {
        if case .fetch = self { false } else { true }
    }

    var requestID: Int64? {
        if case .fetch(let id, _, _, _) = self { id } else { nil }
    }

    static let oneWayTypes: Set<String> = ["clip-offer", "clip-withdrawn", "clip-data"]
}

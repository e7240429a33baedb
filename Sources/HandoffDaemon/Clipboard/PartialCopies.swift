#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClipboard
import HandoffControl
import HandoffCore
import HandoffProtocol

/// Copies arriving in parts (`clipboard-copy` without `last`), each bound to the client that
/// sends it: at most `maxCopies` at once, each at most the clipboard's byte limit, and a copy not
/// finished within `deadline` is dropped.
struct PartialCopies {
    struct Copy {
        let owner: ObjectIdentifier
        var items: [(type: ClipboardType, bytes: [UInt8])]
        var bytes: Int
        let started: ContinuousClock.Instant
    }

    static let maxCopies = 4
    static let deadline = Duration.seconds(30)
    private var copies: [UUID: Copy] = [:]

    /// Adds a part; the whole copy when it was the last.
    mutating func add(
        _ id: UUID, items: [(type: String, bytes: Data)], last: Bool, owner: ObjectIdentifier, limit: Int, now: ContinuousClock.Instant
    ) throws(ControlError) -> (items: [ClipboardItem]?, bytes: Int) {
        copies = copies.filter { now - $0.value.started < Self.deadline }
        var copy = copies[id] ?? Copy(owner: owner, items: [], bytes: 0, started: now)
        guard copy.owner == owner else { throw .badArgument(name: "copy", reason: "another client's copy has this id") }
        if copies[id] == nil, copies.count >= Self.maxCopies {
            throw .failed(code: .busy, message: "\(Self.maxCopies) copies are arriving in parts already; finish one first")
        }
        for (type, bytes) in items {
            copy.bytes += bytes.count
            guard copy.bytes <= limit else {
                copies[id] = nil
                throw .failed(code: .tooLarge, message: ClipboardRefusal.tooLarge(size: copy.bytes, limit: limit).description)
            }
            let mime = ClipboardType(type)
            if let i = copy.items.firstIndex(where: { $0.type == mime }) {
                copy.items[i].bytes += bytes
            } else {
                guard copy.items.count < ClipboardCopyRequest.maxItems else { throw .badArgument(name: "items", reason: "too many types") }
                copy.items.append((mime, [UInt8](bytes)))
            }
        }
        guard last else {
            copies[id] = copy
            return (nil, copy.bytes)
        }
        copies[id] = nil
        return (copy.items.map { ClipboardItem(type: $0.type, bytes: $0.bytes) }, copy.bytes)
    }

    mutating func drop(owner: ObjectIdentifier) { copies = copies.filter { $0.value.owner != owner } }
}

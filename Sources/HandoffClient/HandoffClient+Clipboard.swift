#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffControl
import HandoffCore

/// The shared clipboard, for the session agent and any app (docs/CLIPBOARD.md): a copy given
/// whole and sent in parts, a paste read whole from its parts.
extension HandoffClient {
    /// Offers a copy of these types to the paired machines; the offer's id, once handoffd took it.
    @discardableResult
    public func copyToClipboard(_ items: [(type: String, bytes: Data)]) async throws(ClientError) -> UUID? {
        let copy = UUID()
        var parts: [[(type: String, bytes: Data)]] = [[]]
        var room = ClipboardParts.maxBytes
        for (type, bytes) in items {
            var offset = bytes.startIndex
            repeat {
                if room == 0 {
                    parts.append([])
                    room = ClipboardParts.maxBytes
                }
                let end = min(bytes.endIndex, offset + room)
                parts[parts.count - 1].append((type, Data(bytes[offset..<end])))
                room -= end - offset
                offset = end
            } while offset < bytes.endIndex
        }
        var offer: UUID?
        for (i, part) in parts.enumerated() {
            offer = try await perform(ClipboardCopyRequest(copy: copy, items: part, last: i == parts.count - 1)).offer
        }
        return offer
    }

    /// The bytes of the clipboard's content (or `peer`'s offer) of `mime` (default: the first
    /// shared type it has), fetched from the machine that copied it, with what they are.
    public func pasteFromClipboard(peer: String? = nil, mime: String? = nil) async throws(ClientError) -> (part: ClipboardPart, bytes: Data) {
        var first = try await perform(ClipboardPasteRequest(peer: peer, mime: mime, offset: 0))
        var bytes = first.data
        // The next parts name the offer's type and machine, so that they continue what the first began.
        while Int64(bytes.count) < first.total {
            let next = try await perform(ClipboardPasteRequest(peer: first.peer, mime: first.mime, offset: Int64(bytes.count)))
            guard next.offer == first.offer, next.total == first.total, !next.data.isEmpty else {
                throw .refused(code: .clipboardNoOffer, message: "the copy changed while it was pasted; paste again")
            }
            bytes += next.data
        }
        first.data = Data()
        return (first, bytes)
    }
}

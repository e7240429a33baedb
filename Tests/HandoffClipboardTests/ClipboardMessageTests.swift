import Foundation
import HandoffClipboard
import HandoffCore
import HandoffProtocol
import Testing

/// The clipboard's peer messages: each comes back as it went, a hostile one is refused with the
/// field named, and an offer stays small on the wire.
@Suite struct ClipboardMessageTests {
    static let offer = ClipboardOffer(
        id: UUID(), items: [OfferedItem(type: .text, size: 65_536), OfferedItem(type: .html, size: 70_000)],
        hash: Array(0..<16), copiedAt: Date(timeIntervalSince1970: 1_800_000_000))

    @Test func eachMessageComesBackAsItWent() throws {
        let messages: [PeerMessage] = [
            .clipboard(.offer(Self.offer)), .clipboard(.withdrawn(offerID: Self.offer.id)),
            .clipboard(.fetch(id: 7, offerID: Self.offer.id, type: .png, offset: 120_000)),
            .clipboard(.data(id: 7, total: 200_000, offset: 120_000, bytes: [UInt8](repeating: 9, count: ClipboardMessage.maxPart)))
        ]
        for message in messages {
            #expect(try PeerMessage(decoding: try message.encoded()) == message)
        }
        #expect(PeerMessage.clipboard(.fetch(id: 7, offerID: Self.offer.id, type: .png, offset: 0)).requestID == 7)
        #expect(PeerMessage.clipboard(.offer(Self.offer)).isOneWay)
    }

    @Test func aFullPartFitsOneLinkFrame() throws {
        let data = PeerMessage.clipboard(
            .data(id: Int64.max, total: UInt64(Int64.max), offset: 0, bytes: [UInt8](repeating: 0xff, count: ClipboardMessage.maxPart)))
        // The link's frame is 65,535 bytes with a 16-byte tag.
        #expect(try data.encoded().count <= 65_535 - 16)
    }

    @Test func anOfferOfTextIsAFewDozenBytes() throws {
        let text = ClipboardOffer(id: UUID(), items: [OfferedItem(type: .text, size: 5)], hash: Array(0..<16), copiedAt: Date())
        let bytes = try PeerMessage.clipboard(.offer(text)).encoded().count
        #expect(bytes <= 200 - 16 - 2, "\(bytes) bytes")
    }

    @Test func hostileMessagesNameTheirField() throws {
        func decode(_ fields: [String: PropertyListValue]) throws -> PeerMessage {
            try PeerMessage(decoding: try CanonicalEncoder().encodedBytes(.dictionary(fields)))
        }
        let id = PropertyListValue.string(UUID().canonicalString)
        let item = PropertyListValue.dictionary(["mime": "text/html", "size": .integer(1)])
        #expect(throws: PeerProtocolError.badField("hash", "not 16 bytes")) {
            try decode(["type": "clip-offer", "offer": id, "hash": .data(Data([1])), "at": .date(Date()), "items": .array([item])])
        }
        #expect(throws: PeerProtocolError.badField("items", "not 1 to 8 types")) {
            try decode([
                "type": "clip-offer", "offer": id, "hash": .data(Data(count: 16)), "at": .date(Date()),
                "items": .array(Array(repeating: item, count: 9))
            ])
        }
        #expect(throws: PeerProtocolError.badField("offset", "past the total")) {
            try decode(["type": "clip-data", "id": .integer(1), "total": .integer(2), "offset": .integer(2), "bytes": .data(Data([1]))])
        }
        #expect(throws: PeerProtocolError.badField("offset", "negative")) {
            try decode(["type": "clip-fetch", "id": .integer(1), "offer": id, "mime": "text/html", "offset": .integer(-1)])
        }
        #expect(throws: PeerProtocolError.unknownType("clip-other")) { try decode(["type": "clip-other"]) }
    }
}

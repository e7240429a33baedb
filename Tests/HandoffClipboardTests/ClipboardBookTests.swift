import Foundation
import HandoffClipboard
import HandoffCore
import HandoffProtocol
import Testing

/// The clipboard's rules and its book, without a socket: what a copy shares, who owns the
/// clipboard, what a paired machine may fetch and when offers die.
@Suite struct ClipboardBookTests {
    static let start = ContinuousClock.now
    static let alpha = PeerID("alpha-id"), gamma = PeerID("gamma-id")

    static func text(_ s: String) -> [ClipboardItem] { [ClipboardItem(type: .text, bytes: Array(s.utf8))] }

    @Test func aPasswordManagersCopyIsNeverShared() {
        var book = ClipboardBook(settings: ClipboardSettings())
        let secret = Self.text("hunter2") + [ClipboardItem(type: .passwordManagerHint, bytes: Array("secret".utf8))]
        #expect(throws: ClipboardRefusal.secret) { try book.copy(secret, id: UUID(), at: Date(), now: Self.start) }
        #expect(book.local == nil && book.owner == .nobody)
    }

    @Test func onlyTheSharedTypesLeaveAndLinksMustBeWeb() throws {
        let items = [
            ClipboardItem(type: ClipboardType("application/x-private"), bytes: [1, 2, 3]),
            ClipboardItem(type: .uriList, bytes: Array("file:///etc/passwd\r\n# a comment\r\nhttps://example.org/a\r\n".utf8)),
            ClipboardItem(type: .html, bytes: [0xff, 0xfe])  // not UTF-8: dropped
        ]
        let shared = try ClipboardRules.shared(items, limit: 1024)
        #expect(shared == [ClipboardItem(type: .uriList, bytes: Array("https://example.org/a\r\n".utf8))])
        #expect(throws: ClipboardRefusal.nothingShared) {
            try ClipboardRules.shared([ClipboardItem(type: .uriList, bytes: Array("file:///x\r\n".utf8))], limit: 1024)
        }
        #expect(throws: ClipboardRefusal.tooLarge(size: 11, limit: 10)) { try ClipboardRules.shared(Self.text("eleven char"), limit: 10) }
    }

    @Test func aCopyIsAnnouncedOnceAndTheSameCopyAgainOnlyLivesLonger() throws {
        var book = ClipboardBook(settings: ClipboardSettings())
        let (offer, actions) = try book.copy(Self.text("hello"), id: UUID(), at: Date(), now: Self.start)
        #expect(actions == [.announce(offer), .changed])
        #expect(offer.items == [OfferedItem(type: .text, size: 5)] && offer.hash.count == 16)
        let again = try book.copy(Self.text("hello"), id: UUID(), at: Date(), now: Self.start + .seconds(60))
        #expect(again.offer == offer && again.actions.isEmpty)
        #expect(book.local?.expires == Self.start + .seconds(180))
    }

    @Test func theNewestCopyWinsAndAPeersContentIsNotEchoed() throws {
        var book = ClipboardBook(settings: ClipboardSettings())
        let mine = try book.copy(Self.text("mine"), id: UUID(), at: Date(), now: Self.start).offer
        let theirsItems = Self.text("theirs")
        let theirs = ClipboardOffer(id: UUID(), items: [OfferedItem(type: .text, size: 6)], hash: ClipboardRules.hash(theirsItems), copiedAt: Date())
        #expect(book.heard(theirs, from: Self.alpha, name: "alpha", now: Self.start) == [.withdraw(offerID: mine.id), .changed])
        #expect(book.owner == .peer(Self.alpha, offerID: theirs.id) && book.local == nil)
        // Pasted here, then copied here again by the person's app: not offered back.
        #expect(throws: ClipboardRefusal.fromPeer) { try book.copy(theirsItems, id: UUID(), at: Date(), now: Self.start) }
        // A new copy here wins again.
        let newer = try book.copy(Self.text("newer"), id: UUID(), at: Date(), now: Self.start).offer
        #expect(book.owner == .local(offerID: newer.id))
    }

    @Test func offersDieWithTimeTheirMachineAndTheSwitch() throws {
        var book = ClipboardBook(settings: ClipboardSettings(lifetime: .seconds(10)))
        let offer = ClipboardOffer(id: UUID(), items: [OfferedItem(type: .png, size: 100)], hash: [UInt8](repeating: 1, count: 16), copiedAt: Date())
        _ = book.heard(offer, from: Self.alpha, name: "alpha", now: Self.start)
        #expect(book.pasteSource(peer: nil, now: Self.start + .seconds(9))?.offer == offer)
        #expect(book.pasteSource(peer: nil, now: Self.start + .seconds(10)) == nil, "a paste after the expiry gets nothing")
        #expect(book.tick(now: Self.start + .seconds(10)) == [.changed] && book.heard.isEmpty)
        _ = book.heard(offer, from: Self.alpha, name: "alpha", now: Self.start)
        #expect(book.dropped(Self.gamma) == [])
        #expect(book.dropped(Self.alpha, offerID: UUID()) == [], "another offer's withdrawal leaves this one")
        #expect(book.dropped(Self.alpha) == [.changed] && book.owner == .nobody)
        let mine = try book.copy(Self.text("x"), id: UUID(), at: Date(), now: Self.start).offer
        #expect(book.setEnabled(false) == [.withdraw(offerID: mine.id), .changed])
        #expect(book.heard(offer, from: Self.alpha, name: "alpha", now: Self.start).isEmpty, "off: offers are not taken")
        #expect(throws: ClipboardRefusal.off) { try book.copy(Self.text("y"), id: UUID(), at: Date(), now: Self.start) }
    }

    @Test func aFloodOfCopiesAnnouncesTheFirstAndThenTheNewestEachInterval() throws {
        var book = ClipboardBook(settings: ClipboardSettings())
        let first = try book.copy(Self.text("0"), id: UUID(), at: Date(), now: Self.start)
        #expect(first.actions == [.announce(first.offer), .changed])
        var last = first.offer
        for i in 1..<1_000 {
            let copy = try book.copy(Self.text("\(i)"), id: UUID(), at: Date(), now: Self.start + .microseconds(i * 10))
            #expect(copy.actions == [.changed], "copy \(i) went out inside the interval")
            last = copy.offer
        }
        let due = Self.start + ClipboardBook.announceInterval
        #expect(book.nextTick == due)
        #expect(book.tick(now: due) == [.announce(last)], "the newest copy goes out when the interval ends")
        #expect(book.tick(now: due + ClipboardBook.announceInterval) == [], "nothing held back: nothing more")
    }

    @Test func aRefusedMachineNeitherOffersNorFetches() throws {
        var book = ClipboardBook(settings: ClipboardSettings(refuseFrom: ["gamma"]))
        let offer = ClipboardOffer(id: UUID(), items: [OfferedItem(type: .text, size: 1)], hash: [UInt8](repeating: 2, count: 16), copiedAt: Date())
        #expect(book.heard(offer, from: Self.gamma, name: "gamma", now: Self.start).isEmpty)
        let mine = try book.copy(Self.text("z"), id: UUID(), at: Date(), now: Self.start).offer
        #expect(book.serve(offerID: mine.id, type: .text, to: "gamma", now: Self.start) == .failure(.refused))
        #expect(book.serve(offerID: mine.id, type: .text, to: "alpha", now: Self.start) == .success(Array("z".utf8)))
        #expect(book.serve(offerID: mine.id, type: .png, to: "alpha", now: Self.start) == .failure(.noType))
        #expect(book.serve(offerID: UUID(), type: .text, to: "alpha", now: Self.start) == .failure(.noOffer))
        #expect(book.serve(offerID: mine.id, type: .text, to: "alpha", now: Self.start + .seconds(120)) == .failure(.noOffer))
    }

    @Test func anOfferOverTheBoundsOrOfOtherTypesIsIgnored() {
        var book = ClipboardBook(settings: ClipboardSettings(maxBytes: 100))
        let big = ClipboardOffer(id: UUID(), items: [OfferedItem(type: .png, size: 101)], hash: [UInt8](repeating: 3, count: 16), copiedAt: Date())
        let odd = ClipboardOffer(
            id: UUID(), items: [OfferedItem(type: ClipboardType("application/x-app"), size: 1)], hash: [UInt8](repeating: 4, count: 16),
            copiedAt: Date())
        #expect(book.heard(big, from: Self.alpha, name: "alpha", now: Self.start).isEmpty)
        #expect(book.heard(odd, from: Self.alpha, name: "alpha", now: Self.start).isEmpty)
    }
}

import Foundation
import HandoffCore
@testable import HandoffProtocol
import Testing

@Suite struct PeerMessageTests {
    static let activity: UserActivity = {
        var a = UserActivity(type: try! ActivityType("org.hawknotes.bookDetail"), title: "Reading")
        try! a.addUserInfoEntries(["bookID": "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"])
        return a
    }()
    static let summary = ActivitySummary(activity, scene: UUID(), updated: Date(timeIntervalSince1970: 1_780_000_000.25))

    static let all: [PeerMessage] = [
        .hello(id: 1, Hello(protocolVersion: 1, device: "Küche", types: ["org.hawknotes.bookDetail"])),
        .hello(id: 1, Hello(device: "B", types: [], port: 7340, addresses: ["192.0.2.4", "2001:db8::4"])),
        .goodbye,
        .streamOpen(id: 9, stream: UInt64.max, activityID: UUID(), window: 2 << 20),
        .streamAccepted(id: 9, stream: 42, window: 65_536),
        .list(id: 2),
        .activities(id: 2, items: [summary, ActivitySummary(activityID: UUID(), type: "a.b", title: nil, scene: nil, version: 3)]),
        .fetch(id: 3, activityID: UUID()),
        .activity(id: 3, activity: activity),
        .continued(activityID: UUID(), version: 7, outcome: .continued),
        .continued(activityID: UUID(), version: 7, outcome: .failed(code: "expired", message: "it expired")),
        .push(id: 4, activity: activity),
        .outcome(id: 4, outcome: .failed(code: "no-handler", message: "none")),
        .changed(items: [summary]),
        .invalidated(activityID: UUID()),
        .ping(id: 5), .pong(id: 5),
        .error(id: 6, code: "unknown-message", message: "what"),
        .error(id: nil, code: "undecodable", message: "?")
    ]

    @Test(arguments: all)
    func roundTrips(_ message: PeerMessage) throws {
        #expect(try PeerMessage(decoding: message.encoded()) == message)
    }

    /// A push and an activity are written from their fields, every other message from its
    /// dictionary: both give the dictionary's canonical bytes.
    @Test(arguments: all)
    func encodesAsItsPropertyList(_ message: PeerMessage) throws {
        #expect(try message.encoded() == CanonicalEncoder(limits: PeerMessage.limits).encodedBytes(message.propertyList))
    }

    @Test func helloPortAndAddressesAreChecked() throws {
        let base: [String: PropertyListValue] = ["type": "hello", "id": 1, "protocol": 1, "device": "B", "types": .array([])]
        var badPort = base
        badPort["port"] = 70_000
        #expect(throws: PeerProtocolError.self) { try PeerMessage(decoding: Array(try CanonicalEncoder().encode(.dictionary(badPort)))) }
        var many = base
        many["port"] = 7340
        many["addresses"] = .array((0...Hello.maxAddresses).map { .string("192.0.2.\($0)") })
        #expect(throws: PeerProtocolError.self) { try PeerMessage(decoding: Array(try CanonicalEncoder().encode(.dictionary(many)))) }
        // An older peer's hello (no port, no addresses) still reads.
        #expect(try PeerMessage(decoding: Array(try CanonicalEncoder().encode(.dictionary(base)))) == .hello(id: 1, Hello(device: "B", types: [])))
    }

    /// A summary's `updated` is optional both ways: an older peer's summary (without it) reads, a
    /// newer peer's field this version does not know is passed over, and one of the wrong kind is
    /// named.
    @Test func summariesWithAndWithoutTheirTime() throws {
        let id = UUID()
        func changed(_ item: [String: PropertyListValue]) throws -> PeerMessage {
            try PeerMessage(decoding: Array(try CanonicalEncoder().encode(["type": "changed", "items": .array([.dictionary(item)])])))
        }
        let old: [String: PropertyListValue] = ["activity": .string(id.uuidString), "type": "a.b", "version": 2]
        #expect(try changed(old) == .changed(items: [ActivitySummary(activityID: id, type: "a.b", title: nil, scene: nil, version: 2)]))
        var newer = old
        newer["updated"] = .date(Date(timeIntervalSince1970: 1_780_000_000))
        newer["colour"] = "teal"
        guard case .changed(let items) = try changed(newer) else { throw PeerProtocolError.unknownType("not changed") }
        #expect(items.first?.updated == Date(timeIntervalSince1970: 1_780_000_000))
        var wrong = old
        wrong["updated"] = 1_780_000_000
        #expect(throws: PeerProtocolError.badField("updated", "expected date, found integer")) { try changed(wrong) }
    }

    @Test func unknownTypeIsNamed() throws {
        let bytes = try CanonicalEncoder().encode(["type": "teleport", "id": 1])
        #expect(throws: PeerProtocolError.unknownType("teleport")) { try PeerMessage(decoding: Array(bytes)) }
    }

    @Test func badFieldsAreNamed() throws {
        let bytes = try CanonicalEncoder().encode(["type": "fetch", "id": 1, "activity": "nope"])
        #expect(throws: PeerProtocolError.badField("activity", "not a UUID")) { try PeerMessage(decoding: Array(bytes)) }
        let missing = try CanonicalEncoder().encode(["type": "list"])
        #expect(throws: PeerProtocolError.badField("id", "missing")) { try PeerMessage(decoding: Array(missing)) }
    }

    @Test func garbageIsACleanError() {
        for junk: [UInt8] in [[], [0xFF], Array("hello".utf8), [0x48, 0x4F, 0x01, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]] {
            let e = #expect(throws: PeerProtocolError.self) { try PeerMessage(decoding: junk) }
            guard case .undecodable? = e else {
                Issue.record("\(junk): \(String(describing: e))")
                continue
            }
        }
    }

    @Test func requestIDs() {
        #expect(PeerMessage.fetch(id: 9, activityID: UUID()).requestID == 9)
        #expect(PeerMessage.changed(items: []).requestID == nil)
    }
}

extension PeerMessage: CustomTestStringConvertible {
    public var testDescription: String { "\(self)".prefix(60).description }
}

import Foundation
import Testing
@testable import HandoffCore

private struct Point: Codable, Equatable {
    var x: Int
    var y: Int
}
private struct Named: Codable, Equatable, NamedActivityPayload {
    static let payloadTypeName = "Wire.Named"
    var s: String
}

@Suite struct TypedPayloadTests {
    @Test func roundTrip() throws {
        var a = UserActivity(type: makeType())
        try a.setTypedPayload(Point(x: 1, y: 2))
        #expect(try a.typedPayload(Point.self) == Point(x: 1, y: 2))
        #expect(a.typedPayloadTypeName == "Point")
        try a.setTypedPayload(Named(s: "n"))
        #expect(a.typedPayloadTypeName == "Wire.Named")
        #expect(try a.typedPayload(Named.self) == Named(s: "n"))
    }

    @Test func survivesTheCodec() throws {
        var a = UserActivity(type: makeType())
        try a.setTypedPayload(Point(x: 3, y: 4))
        let b = try UserActivity(decoding: a.encoded())
        #expect(try b.typedPayload(Point.self) == Point(x: 3, y: 4))
    }

    @Test func missing() {
        let a = UserActivity(type: makeType())
        #expect(throws: ActivityError.payloadMissing) { try a.typedPayload(Point.self) }
    }

    @Test func wrongType() throws {
        var a = UserActivity(type: makeType())
        try a.setTypedPayload(Point(x: 1, y: 2))
        #expect(throws: ActivityError.payloadTypeMismatch(expected: "Wire.Named", found: "Point")) {
            try a.typedPayload(Named.self)
        }
    }

    private func activity(payloadEntry: PropertyListValue) throws -> UserActivity {
        // Built the way a peer could send it: through the codec, bypassing setTypedPayload.
        var plist = UserActivity(type: makeType()).propertyList.dictionaryValue!
        plist["userInfo"] = .dictionary([UserActivity.typedPayloadKey: payloadEntry])
        return try UserActivity(propertyList: .dictionary(plist))
    }

    @Test func corruptJSON() throws {
        let a = try activity(payloadEntry: ["type": "Point", "json": .data(Data("{\"x\":1,".utf8))])
        let error = #expect(throws: ActivityError.self) { try a.typedPayload(Point.self) }
        guard case .payloadCorrupt? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func corruptEntryShape() throws {
        let a = try activity(payloadEntry: .string("not a dictionary"))
        let error = #expect(throws: ActivityError.self) { try a.typedPayload(Point.self) }
        guard case .payloadCorrupt? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func deeplyNestedJSONIsACleanError() throws {
        let json = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let a = try activity(payloadEntry: ["type": "Point", "json": .data(Data(json.utf8))])
        let error = #expect(throws: ActivityError.self) { try a.typedPayload(Point.self) }
        guard case .payloadCorrupt? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }
}

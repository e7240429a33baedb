import Foundation
import Testing
@testable import HandoffCore

@Suite struct CodecRoundTripTests {
    static let samples: [PropertyListValue] = [
        "", "héllo ✓", .integer(0), .integer(-1), .integer(.max), .integer(.min), .real(3.25), .real(-0.0),
        .real(.infinity), true, false, .date(Date(timeIntervalSinceReferenceDate: 12_345.5)), .data(Data()),
        .data(Data([0, 1, 255])), [], [1, "a", [true]], [:], ["b": 1, "a": ["c": .data(Data([9]))]]
    ]

    @Test(arguments: samples)
    func roundTrips(_ value: PropertyListValue) throws {
        let bytes = try CanonicalEncoder().encode(value)
        #expect(try BoundedDecoder().decode(bytes) == value)
    }

    @Test func equalValuesGiveIdenticalBytes() throws {
        var a: [String: PropertyListValue] = [:]
        var b: [String: PropertyListValue] = [:]
        let keys = (0..<50).map { "key\($0)" }
        for k in keys { a[k] = .string(k) }
        for k in keys.reversed() { b[k] = .string(k) }
        #expect(try CanonicalEncoder().encode(.dictionary(a)) == CanonicalEncoder().encode(.dictionary(b)))
    }

    @Test func fullActivityRoundTrips() throws {
        let a = try fullActivity()
        let b = try UserActivity(decoding: a.encoded())
        #expect(b == a)
        #expect(b.version == a.version)
        #expect(try b.encoded() == a.encoded())
    }

    @Test func activityFieldsAreTypeChecked() throws {
        var plist = UserActivity(type: makeType()).propertyList.dictionaryValue!
        plist["version"] = "seven"
        #expect(throws: CodecError.field("version", problem: "expected integer, found string")) {
            try UserActivity(propertyList: .dictionary(plist))
        }
        plist["version"] = 1
        plist["type"] = "nodots"
        let e = #expect(throws: CodecError.self) { try UserActivity(propertyList: .dictionary(plist)) }
        guard case .field("type", _)? = e else {
            Issue.record("got \(String(describing: e))")
            return
        }
        plist["type"] = "a.b"
        plist.removeValue(forKey: "id")
        #expect(throws: CodecError.field("id", problem: "missing")) { try UserActivity(propertyList: .dictionary(plist)) }
        plist["id"] = "not-a-uuid"
        #expect(throws: CodecError.field("id", problem: "not a UUID")) { try UserActivity(propertyList: .dictionary(plist)) }
        plist["id"] = .string(UUID().uuidString)
        plist["webpageURL"] = "file:///etc/passwd"
        let w = #expect(throws: CodecError.self) { try UserActivity(propertyList: .dictionary(plist)) }
        guard case .field("webpageURL", _)? = w else {
            Issue.record("got \(String(describing: w))")
            return
        }
    }
}

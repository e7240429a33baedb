import Foundation
import Testing
@testable import HandoffCore

/// The activity written from its fields (`CanonicalEncoder.encodedBytes(_: UserActivity)`,
/// `encodedBytes(ordered:)`) must give the bytes, and refuse what, its property-list form does:
/// the canonical encoding is what peers hash and compare, and the test vectors pin it.
@Suite struct OrderedEncodingTests {
    static func activities() throws -> [UserActivity] {
        var titled = UserActivity(type: makeType())
        titled.title = "only a title"
        return [try fullActivity(), UserActivity(type: makeType()), titled]
    }

    @Test func anActivityFromItsFieldsGivesTheBytesOfItsPropertyList() throws {
        for a in try Self.activities() {
            #expect(try CanonicalEncoder().encodedBytes(a) == CanonicalEncoder().encodedBytes(a.propertyList))
            #expect(try UserActivity(decoding: a.encoded()) == a)
        }
    }

    /// The fields' values, written out here as the property list was before it was made from
    /// `orderedFields`: the test vectors pin only the fields every activity has.
    @Test func theFullActivitysPropertyListHoldsEveryField() throws {
        let a = try fullActivity()
        let expected: PropertyListValue = [
            "id": .string(a.id.canonicalString), "version": .integer(Int64(a.version)), "type": "org.hawknotes.characterDetail",
            "title": "Viewing", "userInfo": .dictionary(a.userInfo), "required": ["n", "s"], "keywords": ["one", "two", "Ünï"],
            "handoff": true, "search": true, "needsSave": true, "target": "b|X", "webpageURL": "https://example.org/p",
            "referrerURL": "https://example.org/r", "expires": .date(Date(timeIntervalSinceReferenceDate: 1_000_000)),
            "persistentID": "pid", "streams": true
        ]
        #expect(a.propertyList == expected)
    }

    @Test func theFieldsAreInCanonicalOrderAndAllThere() throws {
        let keys = try fullActivity().orderedFields.map(\.key)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(keys.count == 16, "every field of a full activity: \(keys)")
    }

    @Test func orderedEntriesGiveTheBytesOfTheDictionary() throws {
        let a = try fullActivity()
        let ordered = try CanonicalEncoder().encodedBytes(ordered: [("activity", .activity(a)), ("id", .value(7)), ("type", .value("push"))])
        let tree = try CanonicalEncoder().encodedBytes(["type": "push", "id": 7, "activity": a.propertyList])
        #expect(ordered == tree)
    }

    /// Each limit hit the same way: the same error at the same value.
    @Test(arguments: [
        CodecLimits(maxValues: 5), CodecLimits(maxValues: 20), CodecLimits(maxDepth: 1), CodecLimits(maxDepth: 2),
        CodecLimits(maxBytes: 40), CodecLimits(maxBytes: 200), CodecLimits(maxKeyBytes: 2)
    ])
    func limitsAreHitAsTheTreeHitsThem(_ limits: CodecLimits) throws {
        let a = try fullActivity()
        let fromTree = #expect(throws: CodecError.self) { try CanonicalEncoder(limits: limits).encodedBytes(a.propertyList) }
        let fromFields = #expect(throws: CodecError.self) { try CanonicalEncoder(limits: limits).encodedBytes(a) }
        #expect(fromTree == fromFields)
    }
}

import Foundation
import HandoffControl
import HandoffCore
import Testing

/// An event line with an activity written from its fields (`JSONWriter.line(_:activity:under:)`)
/// must be the line of the same dictionary: apps parse it, and scripts match on its order.
@Suite struct JSONActivityLineTests {
    /// Its own full activity, not the codec tests': values that JSON escapes or tags (a quote
    /// and a newline in the title, an infinite real, `$` keys).
    static func activities() throws -> [UserActivity] {
        var full = UserActivity(type: try ActivityType("org.hawknotes.characterDetail"), title: "Viewing \"Ünï\"\n")
        try full.setUserInfo(["n": 1, "Zed": .real(.infinity), "d": .date(Date(timeIntervalSinceReferenceDate: 5)), "$lone": ["$x": 1]])
        full.requiredUserInfoKeys = ["n", "d"]
        full.targetContentIdentifier = "b|X"
        try full.setWebpageURL(URL(string: "https://example.org/p"))
        full.referrerURL = URL(string: "https://example.org/r")
        full.keywords = ["two", "one"]
        full.expirationDate = Date(timeIntervalSinceReferenceDate: 1_000_000)
        full.persistentIdentifier = "pid"
        full.supportsContinuationStreams = true
        return [full, UserActivity(type: try ActivityType("a.b"))]
    }

    static let fieldSets: [[String: PropertyListValue]] = [
        [:], ["event": "continue", "token": "t", "handler": "h"], ["a": 1, "b": true], ["$x": 1], ["é": "x", "Z": 2, "actor": .array([])]
    ]

    @Test(arguments: fieldSets)
    func isTheLineOfTheDictionary(_ fields: [String: PropertyListValue]) throws {
        for activity in try Self.activities() {
            let whole = fields.merging(["activity": activity.propertyList]) { $1 }
            #expect(JSONWriter.line(fields, activity: activity, under: "activity") == JSONWriter.line(.dictionary(whole)))
        }
    }

    @Test func anEventWithAnActivityIsTheEventOfItsPropertyList() throws {
        for activity in try Self.activities() {
            let fields: [String: PropertyListValue] = ["token": "t", "handler": "h"]
            #expect(
                ControlLine.event("continue", fields, activity: activity)
                    == ControlLine.event("continue", fields.merging(["activity": activity.propertyList]) { $1 }))
        }
    }
}

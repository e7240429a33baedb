import Foundation
import HandoffCore

/// The repository's top folder, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func makeType(_ s: String = "org.hawknotes.test") -> ActivityType { try! ActivityType(s) }

/// Nests `value` inside `levels` arrays.
func nested(_ levels: Int, around value: PropertyListValue = .integer(1)) -> PropertyListValue {
    (0..<levels).reduce(value) { v, _ in .array([v]) }
}

/// An activity with every field set, optional ones included (the codec tests' fixture).
func fullActivity() throws -> UserActivity {
    var a = UserActivity(type: makeType("org.hawknotes.characterDetail"), title: "Viewing")
    try a.setUserInfo(["n": 1, "s": "x", "Zed": true, "nested": ["d": .date(Date(timeIntervalSinceReferenceDate: 5)), "r": .real(0.5)]])
    a.requiredUserInfoKeys = ["s", "n"]
    a.targetContentIdentifier = "b|X"
    try a.setWebpageURL(URL(string: "https://example.org/p"))
    a.referrerURL = URL(string: "https://example.org/r")
    a.keywords = ["two", "one", "Ünï"]
    a.expirationDate = Date(timeIntervalSinceReferenceDate: 1_000_000)
    a.isEligibleForSearch = true
    a.persistentIdentifier = "pid"
    a.needsSave = true
    a.supportsContinuationStreams = true
    return a
}

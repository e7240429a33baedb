import Foundation
import HandoffBusAPI
import HandoffControl
import Testing

/// The line GNOME Shell and KRunner show under a result: where it is, how long ago it changed,
/// what it is.
@Suite struct DesktopSearchTextTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    static func hit(peer: String? = nil, ago: TimeInterval?) -> SearchHit {
        SearchHit(
            kind: peer == nil ? "activity" : "remote", id: "x", title: "Lantern", detail: "org.hawknotes.bookDetail", peer: peer,
            updated: ago.map { now.addingTimeInterval(-$0) }, rank: -1)
    }

    @Test func whereWhenAndWhat() {
        #expect(DesktopSearch.describe(Self.hit(peer: "alpha", ago: 300), now: Self.now) == "On alpha · 5 min ago · org.hawknotes.bookDetail")
        #expect(DesktopSearch.describe(Self.hit(ago: 7_200), now: Self.now) == "2 h ago · org.hawknotes.bookDetail")
        // A peer that does not say when (an older version): where and what only, as before.
        #expect(DesktopSearch.describe(Self.hit(peer: "alpha", ago: nil), now: Self.now) == "On alpha · org.hawknotes.bookDetail")
    }

    static let saidAges: [(TimeInterval, String)] = [
        (-30, "just now"), (0, "just now"), (59, "just now"), (60, "1 min ago"), (3_599, "59 min ago"), (3_600, "1 h ago"),
        (86_399, "23 h ago"), (86_400, "yesterday"), (3 * 86_400, "3 days ago"), (20 * 86_400, "2026-05-08")
    ]

    @Test(arguments: saidAges)
    func ages(_ ago: TimeInterval, _ said: String) {
        #expect(DesktopSearch.age(Self.now.addingTimeInterval(-ago), now: Self.now) == said)
    }
}

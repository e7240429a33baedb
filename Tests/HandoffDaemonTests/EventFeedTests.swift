import HandoffCore
import Testing
@testable import HandoffDaemon

/// A component's feed of the daemon's events passes on the events its reader acts on, in order,
/// and no other: the others would wake its task for nothing.
@Suite struct EventFeedTests {
    @Test func onlyTheNamedEventsReachTheReader() async {
        let events = ControlEvents()
        let feed = EventFeed(names: ["peerAbsent", "activitiesChanged"])
        events.watch(feed.client)
        events.broadcast("continued", ["peer": "alpha"])
        events.broadcast("peerAbsent", ["peer": "alpha"])
        events.broadcast("userActivityWasContinued")
        events.broadcast("activitiesChanged", ["count": 1])
        events.left(feed.client)
        feed.finish()
        var seen: [String] = []
        for await e in feed.stream { seen.append(e.name) }
        #expect(seen == ["peerAbsent", "activitiesChanged"])
    }

    /// What Search and the desktop notices act on is what they subscribe to.
    @Test func theServicesSubscribeToWhatTheyHandle() {
        #expect(Search.watched.isSuperset(of: ["activitiesChanged", "remoteActivitiesChanged", "peerAbsent", "unpaired"]))
        #expect(DesktopNotices.watched.isSuperset(of: ["remoteActivitiesChanged", "continued", "unpaired"]))
        #expect(!Search.watched.contains("continued") && !DesktopNotices.watched.contains("userActivityWasContinued"))
    }
}

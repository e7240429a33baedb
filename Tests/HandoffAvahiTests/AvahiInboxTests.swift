@testable import HandoffAvahi
import Glibc
import Synchronization
import Testing

/// The inbox alone (no avahi-daemon): what a burst of advert events can make it hold.
struct AvahiInboxTests {
    /// Whether the inbox's pipe has a byte waiting (the poll thread would wake).
    private func readable(_ inbox: AvahiInbox) -> Bool {
        var p = pollfd(fd: inbox.fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }

    @Test func aBurstKeepsOnlyTheNewestOfEachKindInFirstPostedOrder() {
        let inbox = AvahiInbox()
        defer { inbox.closeDescriptor() }
        let ran = Mutex<[String]>([])
        for i in 0..<10_000 {
            #expect(inbox.post(.follow) { ran.withLock { $0.append("follow \(i)") } })
            #expect(inbox.post(.resolve) { ran.withLock { $0.append("resolve \(i)") } })
        }
        #expect(readable(inbox))
        let work = inbox.take()
        #expect(work.count == 2)
        for w in work { w() }
        #expect(ran.withLock { $0 } == ["follow 9999", "resolve 9999"])
        // Taking drained the pipe: nothing wakes the poll thread until the next post.
        #expect(!readable(inbox))
        #expect(inbox.take().isEmpty)
    }

    @Test func aPostAfterATakeWakesThePollThreadAgain() {
        let inbox = AvahiInbox()
        defer { inbox.closeDescriptor() }
        #expect(inbox.post(.resolve) {})
        _ = inbox.take()
        #expect(inbox.post(.resolve) {})
        #expect(readable(inbox))
        #expect(inbox.take().count == 1)
    }

    @Test func aClosedInboxRefusesWorkAndDropsWhatItHeld() {
        let inbox = AvahiInbox()
        defer { inbox.closeDescriptor() }
        #expect(inbox.post(.follow) {})
        inbox.close()
        #expect(!inbox.post(.resolve) {})
        #expect(inbox.take().isEmpty)
    }
}

extension AvahiInboxTests {
    @Test func ourAdvertsActionsAreAllKeptInOrderBesideTheLatestFollow() {
        let inbox = AvahiInbox()
        defer { inbox.closeDescriptor() }
        let ran = Mutex<[String]>([])
        #expect(inbox.post(.advert) { ran.withLock { $0.append("withdraw") } })
        #expect(inbox.post(.follow) { ran.withLock { $0.append("follow 1") } })
        #expect(inbox.post(.advert) { ran.withLock { $0.append("publish") } })
        #expect(inbox.post(.follow) { ran.withLock { $0.append("follow 2") } })
        #expect(inbox.post(.advert) { ran.withLock { $0.append("update") } })
        for w in inbox.take() { w() }
        #expect(ran.withLock { $0 } == ["withdraw", "follow 2", "publish", "update"])
    }
}

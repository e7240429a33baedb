import HandoffAsync
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// `handoff-push-relay hops N`: N rounds of what handoffd does with each message it reads, on the
/// event loop (`EventLoopJobs`): a task waits for the loop to hand it something (a read), then
/// calls three actors, each call a hop to the actor and back that never waits. It prints how many
/// jobs the loop was handed meanwhile ("jobs K rounds N"). The loop runs jobs on the generic
/// executor, so a free actor is entered and left in place: K is N, one a wake-up. Run as NIO
/// runs a job given to its own executor, a woken task could enter no actor in place, and each
/// hop was a job of its own (a push paid 34 on the pusher's side: docs/PERFORMANCE.md, "Threads
/// and blocking").
enum Hops {
    static func count(_ n: Int) {
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        Task {
            let counters = [Counter(), Counter(), Counter()]
            let before = EventLoopJobs.jobsHanded
            for _ in 0..<n {
                await withCheckedContinuation { (woken: CheckedContinuation<Void, Never>) in loop.execute { woken.resume() } }
                for counter in counters { await counter.bump() }
            }
            let handed = EventLoopJobs.jobsHanded - before
            var hops = 0
            for counter in counters { hops += await counter.value }
            let text = "jobs \(handed) rounds \(n) hops \(hops)\n"
            _ = text.withCString { write(1, $0, strlen($0)) }
            exit(0)
        }
    }
}

actor Counter {
    private(set) var value = 0
    func bump() { value += 1 }
}

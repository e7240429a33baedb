import HandoffTestSupport
import Testing

/// handoffd runs every task on its event loop, each job as the global executor runs one, on the
/// generic executor (`EventLoopJobs`): a task woken by the loop then enters a free actor and
/// leaves it in place. Run as NIO runs a job given to the loop's own executor, every hop was a job
/// of its own through the loop's queue (34 a push on the pusher's side). handoff-push-relay's
/// `hops` makes the rounds in a process of its own, as the hook is the process's.
struct EventLoopJobsTests {
    @Test func aWokenTaskEntersFreeActorsInPlace() throws {
        let run = try runCommand([BuiltProducts.path("handoff-push-relay"), "hops", "1000"])
        #expect(run.status == 0, "\(run.output)")
        // "jobs K rounds N hops H"
        let words = run.output.split(whereSeparator: \.isWhitespace).map(String.init)
        func value(_ name: String) -> Int? { words.firstIndex(of: name).flatMap { words.indices.contains($0 + 1) ? Int(words[$0 + 1]) : nil } }
        #expect(value("rounds") == 1000 && value("hops") == 3000, "\(run.output)")
        // One job a round, its wake-up; the three hops hand the loop none. (Isolated to the
        // loop's executor the same rounds handed it 3,001.)
        #expect(value("jobs").map { $0 <= 1010 } == true, "\(run.output)")
    }
}

import CExecutorHook
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Every task of a process runs on one event loop thread instead of Dispatch's pool: a message
/// read on the loop, the actors that handle it and the answer written back then share one thread,
/// where each step from the loop to a pool thread and back woke a thread (a quarter of handoffd's
/// CPU at continue load was the kernel's scheduler, perf). Blocking work stays off it: handoffd's
/// SQLite writes run on their own queue, Avahi and the control socket's accept on their threads.
/// handoffd and the push floor's relay (handoff-push-relay) run their tasks this way.
public enum EventLoopJobs {
    nonisolated(unsafe) private static var loop: (any EventLoop)?
    private static let handed = Atomic<Int>(0)

    /// The jobs handed to the loop so far: a task's start, and each resumption after it really
    /// waited. A hop to a free actor and back hands it none (handoff-push-relay's `hops`, which
    /// `EventLoopJobsTests` runs, counts them: a relaxed atomic add a job).
    public static var jobsHanded: Int { handed.load(ordering: .relaxed) }

    /// Call once, before any task starts. `name` says who, should another hook have been set first.
    public static func routeEveryTask(name: String) {
        loop = MultiThreadedEventLoopGroup.singleton.any()
        let routed = handoff_route_global_jobs { job in
            guard let job else { return }
            // Run as the global executor runs a job (the generic executor), not as one isolated
            // to the loop (what the loop's own `executor.enqueue` does): a task may then hop to
            // an actor and back in place, where it was enqueued again for every hop.
            // `execute` makes a closure a job (the loop's job queue made none): paid only where a
            // task really waits, no longer at every hop.
            let address = UInt(bitPattern: job)
            EventLoopJobs.handed.add(1, ordering: .relaxed)
            EventLoopJobs.loop!.execute { handoff_run_global_job(UnsafeMutableRawPointer(bitPattern: address)) }
        }
        if routed != 0 {
            let text = "\(name): tasks run on Swift's own threads (another hook was set first)\n"
            _ = text.withCString { write(2, $0, strlen($0)) }
        }
    }
}

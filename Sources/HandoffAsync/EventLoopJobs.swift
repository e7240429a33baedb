import CExecutorHook
import NIOCore
import NIOPosix

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
            EventLoopJobs.loop!.execute { handoff_run_global_job(UnsafeMutableRawPointer(bitPattern: address)) }
        }
        if routed != 0 {
            let text = "\(name): tasks run on Swift's own threads (another hook was set first)\n"
            _ = text.withCString { write(2, $0, strlen($0)) }
        }
    }
}

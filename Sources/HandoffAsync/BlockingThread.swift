import CHandoffShims
#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX thread of its own for blocking calls (a read that may wait minutes), which must never
/// hold one of Swift's cooperative threads. Foundation's `Thread` did this; it is not in
/// FoundationEssentials.
public enum BlockingThread {
    private final class Work {
        let name: String?
        let body: @Sendable () -> Void
        init(name: String?, _ body: @escaping @Sendable () -> Void) { (self.name, self.body) = (name, body) }
    }

    /// Runs `body` on a new detached thread. If no thread can be made (EAGAIN: at the process's
    /// limit), `body` runs here: slower for the caller, but it still runs.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        if let failed = spawn(name: nil, body) { failed.work.takeRetainedValue().body() }
    }

    /// Runs `body` on a new detached thread named `name` (seen in `ps -L` and in backtraces).
    /// 0, or pthread_create's error number (it does not set errno) if no thread can be made:
    /// for a loop that must not run on the caller's thread.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        guard let failed = spawn(name: name, body) else { return 0 }
        failed.work.release()
        return failed.error
    }

    /// nil when the thread runs; the work back and the error number otherwise.
    private static func spawn(name: String?, _ body: @escaping @Sendable () -> Void) -> (work: Unmanaged<Work>, error: Int32)? {
        let work = Unmanaged.passRetained(Work(name: name, body))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { context in
                let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
                if let name = work.name { handoff_name_thread(name) }
                work.body()
                return nil
            }, work.toOpaque())
        pthread_attr_destroy(&attributes)
        return started == 0 ? nil : (work, started)
    }
}

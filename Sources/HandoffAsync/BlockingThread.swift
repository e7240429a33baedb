#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX thread of its own for blocking calls (a read that may wait minutes), which must never
/// hold one of Swift's cooperative threads. Foundation's `Thread` did this; it is not in
/// FoundationEssentials.
public enum BlockingThread {
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread. If no thread can be made (EAGAIN: at the process's
    /// limit), `body` runs here: slower for the caller, but it still runs.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(body))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { context in
                Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, work.toOpaque())
        pthread_attr_destroy(&attributes)
        if started != 0 { work.takeRetainedValue().body() }
    }
}

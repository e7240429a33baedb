#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// How many sessions the descriptors allow. Every session and connection is a descriptor; when
/// they ran out, libdispatch trapped (it could not open a thread's /proc file) and handoffd died
/// with no log line. So the session cap stays below what the limit leaves once everything else
/// is counted: past it, a new session is refused and logged, never a crash. Pure.
enum DescriptorBudget {
    /// Descriptors kept for everything that is not a session or a connection: the database,
    /// avahi, the journal, the event loops, Dispatch, handler commands' pipes, dials.
    static let reserve = 128

    /// The session cap to use under a descriptor limit of `limit`.
    static func sessions(configured: Int, limit: Int, unauthenticated: Int, controlClients: Int) -> Int {
        let left = limit - reserve - unauthenticated - controlClients
        return max(4, min(configured, left * 3 / 4))
    }

    /// The process's soft limit on open descriptors (RLIMIT_NOFILE).
    static func currentLimit() -> Int? {
        var r = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r) == 0 else { return nil }
        return r.rlim_cur > rlim_t(Int.max / 2) ? Int.max / 2 : Int(r.rlim_cur)
    }
}

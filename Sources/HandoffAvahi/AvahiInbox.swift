import CAvahi
#if canImport(Glibc)
    import Glibc
#endif
import Synchronization

/// Work handed to the poll thread without taking the poll's lock: the poll thread holds that lock
/// while it waits for avahi-daemon over D-Bus, and a caller on handoffd's event loop waited with
/// it (perf's sched_switch in `Tests/Rigs/scale.sh`: a hub restarted among 49 peers had its loop
/// blocked 62 ms on the lock in `resolve` and `follow` alone, while its peers' handshakes
/// waited). The work goes in a list under a lock of its own; a byte on a pipe, watched by the
/// poll, wakes the poll thread, which runs it in order with the poll lock held, as a callback.
///
/// A `follow` or a `resolve` is "latest wins" (each rescans every lookup for the whole new state),
/// so the inbox keeps only the newest of each: one entry each, however many advert events (which a
/// stranger can cause) arrive while the poll thread waits on D-Bus. Our own adverts' actions are
/// all kept, in order: they come from handoffd's own publishes, rewrites and rotations, which
/// its schedule paces.
final class AvahiInbox: Sendable {
    enum Kind: Equatable {
        case follow, resolve, advert

        /// Whether newer work of this kind replaces what is queued.
        var latestWins: Bool { self != .advert }
    }

    private struct State {
        var work: [(kind: Kind, run: @Sendable () -> Void)] = []
        var closed = false
    }

    private let state = Mutex(State())
    /// The pipe's read end (watched by the poll) and write end; -1 when pipe failed, and the
    /// caller takes the poll lock instead.
    let fd: Int32
    private let wake: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
            (fd, wake) = (ends[0], ends[1])
        } else {
            (fd, wake) = (-1, -1)
        }
    }

    /// Queues `work`, in place of any queued work of its kind, and wakes the poll thread; false if
    /// there is no pipe or the inbox is closed.
    func post(_ kind: Kind, _ work: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { s in
            guard fd >= 0, !s.closed else { return false }
            if kind.latestWins, let queued = s.work.firstIndex(where: { $0.kind == kind }) {
                s.work[queued].run = work
                return true
            }
            s.work.append((kind, work))
            // One wake-up for a batch: the poll thread takes everything queued when it runs.
            if s.work.count == 1 {
                var one: UInt8 = 1
                _ = write(wake, &one, 1)
            }
            return true
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// On the poll thread (the poll lock held): what was queued, in order.
    func take() -> [@Sendable () -> Void] {
        state.withLock { s in
            // Under the lock: a post after this sees an empty list and writes a new byte.
            var bytes = [UInt8](repeating: 0, count: 64)
            while read(fd, &bytes, bytes.count) > 0 {}
            defer { s.work = [] }
            return s.work.map(\.run)
        }
    }

    /// No more work is taken; the descriptor is closed (after the poll thread stopped).
    func close() {
        state.withLock { s in
            s.closed = true
            s.work = []
        }
    }

    func closeDescriptor() {
        if fd >= 0 {
            _ = Glibc.close(fd)
            _ = Glibc.close(wake)
        }
    }
}

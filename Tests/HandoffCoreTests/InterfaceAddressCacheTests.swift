import Synchronization
import Testing
@testable import HandoffCore

/// The addresses are read once per reported change while a watcher runs.
@Suite struct InterfaceAddressCacheTests {
    final class Reader: Sendable {
        let reads = Mutex(0)
        let during = Mutex<(@Sendable () -> Void)?>(nil)
        func read() -> [InterfaceAddress]? {
            let n = reads.withLock {
                $0 += 1
                return $0
            }
            during.withLock { $0 }?()
            return [InterfaceAddress(text: "10.0.0.\(n)", interfaceIndex: 2, isIPv6: false, prefixLength: 24)]
        }
    }

    @Test func withoutAWatcherEveryLookReads() {
        let cache = InterfaceAddressCache(), reader = Reader()
        _ = cache.addresses(reading: reader.read)
        _ = cache.addresses(reading: reader.read)
        #expect(reader.reads.withLock { $0 } == 2)
    }

    @Test func whileWatchedOneReadPerChange() {
        let cache = InterfaceAddressCache(), reader = Reader()
        cache.watching(true)
        let first = cache.addresses(reading: reader.read)
        #expect(cache.addresses(reading: reader.read) == first)
        #expect(reader.reads.withLock { $0 } == 1)
        cache.changed()
        let second = cache.addresses(reading: reader.read)
        #expect(second != first)
        #expect(cache.addresses(reading: reader.read) == second)
        #expect(reader.reads.withLock { $0 } == 2)
        cache.watching(false)
        _ = cache.addresses(reading: reader.read)
        #expect(reader.reads.withLock { $0 } == 3)
    }

    @Test func aChangeDuringTheReadLeavesItStale() {
        let cache = InterfaceAddressCache(), reader = Reader()
        cache.watching(true)
        reader.during.withLock { $0 = { cache.changed() } }
        _ = cache.addresses(reading: reader.read)
        reader.during.withLock { $0 = nil }
        _ = cache.addresses(reading: reader.read)
        _ = cache.addresses(reading: reader.read)
        #expect(reader.reads.withLock { $0 } == 2)
    }

    @Test func aFailedReadIsNotKept() {
        let cache = InterfaceAddressCache()
        cache.watching(true)
        let failing = Mutex(0)
        #expect(
            cache.addresses(reading: {
                failing.withLock { $0 += 1 }
                return nil
            }) == nil)
        #expect(
            cache.addresses(reading: {
                failing.withLock { $0 += 1 }
                return nil
            }) == nil)
        #expect(failing.withLock { $0 } == 2)
    }
}

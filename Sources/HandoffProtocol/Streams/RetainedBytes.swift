/// What our app wrote to a stream that the peer has not acknowledged: one contiguous buffer per
/// stream, whatever the number or size of the app's writes (a buffer per write kept 64 KiB for
/// each byte an echo app wrote). Bytes are named by their stream offset; the front is dropped as
/// the peer acknowledges it, and the storage compacts once the dropped front outweighs the rest.
public struct RetainedBytes: Sendable {
    private var storage: [UInt8] = []
    /// The index in `storage` of the byte at `start`.
    private var head = 0
    /// The stream offset of the first byte held.
    public private(set) var start: UInt64 = 0

    public init() {}

    /// The stream offset just past the last byte held.
    public var end: UInt64 { start + UInt64(storage.count - head) }
    public var count: Int { storage.count - head }
    /// Bytes the storage takes, held or not yet reused (what a stream costs in memory).
    public var capacity: Int { storage.capacity }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        storage.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: some Collection<UInt8>) {
        storage.append(contentsOf: bytes)
    }

    /// Drops every byte before `offset` (an acknowledgement).
    public mutating func drop(before offset: UInt64) {
        guard offset > start else { return }
        let n = Int(min(offset, end) - start)
        head += n
        start += UInt64(n)
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= Self.keptCapacity)
            head = 0
        } else if head >= Self.keptCapacity, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// The `count` bytes from `offset`, as a view of the storage (not copied).
    public func bytes(from offset: UInt64, count: Int) -> ArraySlice<UInt8> {
        precondition(offset >= start && offset + UInt64(count) <= end, "bytes outside what is retained")
        let from = head + Int(offset - start)
        return storage[from..<(from + count)]
    }

    /// Storage kept for reuse when everything was acknowledged, and the dropped front past which
    /// the rest is moved down.
    static let keptCapacity = 256 << 10
}

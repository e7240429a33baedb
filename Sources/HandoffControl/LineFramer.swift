/// Splits a byte stream into newline-terminated lines, refusing a line longer than the limit as
/// soon as it is exceeded: the rest of that line is skipped, never buffered.
public struct LineFramer: Sendable {
    public static let defaultMaxLine = 256 * 1024

    public let maxLine: Int
    private var pending: [UInt8] = []
    private var skippingLongLine = false

    public init(maxLine: Int = LineFramer.defaultMaxLine) { self.maxLine = maxLine }

    public enum Item: Sendable, Equatable {
        case line([UInt8])
        case tooLong(limit: Int)
    }

    /// Any bytes; contiguous ones (a ByteBufferView, an array) are read in place. A per-byte loop
    /// through `Sequence` cost the clients' and the control server's reading most of its time
    /// in generic metadata lookups (docs/PERFORMANCE.md).
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Item] {
        if let items = bytes.withContiguousStorageIfAvailable({ feed(UnsafeRawBufferPointer($0)) }) { return items }
        return Array(bytes).withUnsafeBytes { feed($0) }
    }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Item] {
        var out: [Item] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: 0x0A)
            let chunk = rest[..<(newline ?? rest.endIndex)]
            if !skippingLongLine {
                if pending.count + chunk.count > maxLine {
                    // Refused as soon as it is too long: the rest of the line is skipped.
                    out.append(.tooLong(limit: maxLine))
                    pending = []
                    skippingLongLine = true
                } else {
                    pending.append(contentsOf: chunk)
                }
            }
            guard let newline else { break }
            if !skippingLongLine { out.append(.line(pending.last == 0x0D ? Array(pending.dropLast()) : pending)) }
            pending.removeAll(keepingCapacity: true)
            skippingLongLine = false
            rest = rest[(newline + 1)...]
        }
        return out
    }
}

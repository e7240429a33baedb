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

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Item] {
        var out: [Item] = []
        for b in bytes {
            if b == 0x0A {
                if !skippingLongLine { out.append(.line(pending.last == 0x0D ? Array(pending.dropLast()) : pending)) }
                pending.removeAll(keepingCapacity: true)
                skippingLongLine = false
            } else if !skippingLongLine {
                pending.append(b)
                if pending.count > maxLine {
                    out.append(.tooLong(limit: maxLine))
                    pending = []
                    skippingLongLine = true
                }
            }
        }
        return out
    }
}

/// The browser's native messaging framing (docs/BROWSER.md): each message is a 32-bit length in
/// the machine's byte order, then that many bytes of UTF-8 JSON, both ways over the host's stdin
/// and stdout.
///
/// Bounded whatever the extension (or a page that got hold of it) sends: a message longer than
/// `maxMessage` is not kept; its bytes are skipped as they arrive and it is reported once, so the
/// stream stays in step and memory stays at one message.
public struct NativeFrameDecoder: Sendable {
    public enum Item: Sendable, Equatable {
        case message([UInt8])
        /// A message of `length` bytes was skipped: longer than the bound.
        case tooLong(length: UInt32)
    }

    public let maxMessage: Int
    private var buffer: [UInt8] = []
    /// Bytes of an overlong message still to skip.
    private var skipping = 0

    public init(maxMessage: Int) { self.maxMessage = maxMessage }

    /// The messages `bytes` completes, in order.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [Item] {
        var input = ArraySlice(bytes)
        if skipping > 0 {
            let n = min(skipping, input.count)
            skipping -= n
            input = input.dropFirst(n)
        }
        buffer.append(contentsOf: input)
        var items: [Item] = []
        var start = 0
        while buffer.count - start >= 4 {
            let length = UInt32(littleEndianBytes: buffer[start..<start + 4])
            if Int(length) > maxMessage {
                items.append(.tooLong(length: length))
                let available = buffer.count - start - 4
                let skipNow = min(Int(length), available)
                start += 4 + skipNow
                skipping = Int(length) - skipNow
                continue
            }
            guard buffer.count - start - 4 >= Int(length) else { break }
            items.append(.message(Array(buffer[start + 4..<start + 4 + Int(length)])))
            start += 4 + Int(length)
        }
        buffer.removeFirst(start)
        return items
    }

    /// Bytes held for a message not yet whole (at most `maxMessage` + 4).
    public var pending: Int { buffer.count }
}

public enum NativeFrame {
    /// What the browser takes from a host, at most (Chromium and Firefox: 1 MiB).
    public static let maxToBrowser = 1 << 20

    /// `json` framed; nil when it is longer than the browser takes.
    public static func encode(_ json: [UInt8]) -> [UInt8]? {
        guard json.count <= maxToBrowser else { return nil }
        return UInt32(json.count).littleEndianBytes + json
    }
}

#if !_endian(little)
    #error("the native messaging framing is read as little-endian: add the big-endian order")
#endif

extension UInt32 {
    /// The native byte order is little-endian on every machine handoffd is built for (x86-64,
    /// arm64, riscv64); the framing's "native" means this one.
    init(littleEndianBytes b: ArraySlice<UInt8>) {
        let i = b.startIndex
        self = UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    var littleEndianBytes: [UInt8] { [UInt8(self & 0xff), UInt8(self >> 8 & 0xff), UInt8(self >> 16 & 0xff), UInt8(self >> 24)] }
}

/// What `handoffctl receive` takes from paired machines (docs/STREAMS.md, "Receiving files"): a
/// sender names a file's size, and anything it names would otherwise be written until the disk
/// is full. Checked before a file is accepted and again while it is written; pure, so the caller
/// passes the free space it measured.
public struct ReceiveLimits: Sendable, Equatable {
    /// The largest file taken.
    public var maxFileBytes: Int64
    /// Free space left on the receiving filesystem, whatever comes: a file that would leave less is
    /// refused, and one that leaves less while it is written (the disk filled from elsewhere) stops.
    /// Nil: the default, 1 GiB or a tenth of the filesystem, whichever is less.
    public var keepFreeBytes: Int64?
    /// The most taken from one machine while `receive` runs.
    public var perPeerBytes: Int64

    public static let defaultMaxFile: Int64 = 64 << 30
    public static let defaultPerPeer: Int64 = 256 << 30
    public static let defaultKeepFree: Int64 = 1 << 30

    public init(maxFileBytes: Int64 = defaultMaxFile, keepFreeBytes: Int64? = nil, perPeerBytes: Int64 = defaultPerPeer) {
        self.maxFileBytes = maxFileBytes
        self.keepFreeBytes = keepFreeBytes
        self.perPeerBytes = perPeerBytes
    }

    /// The free space to keep on a filesystem of `totalBytes`.
    public func reserve(ofFilesystem totalBytes: Int64) -> Int64 {
        keepFreeBytes ?? min(Self.defaultKeepFree, totalBytes / 10)
    }

    /// Why a file of `size` bytes from a machine that already sent `fromPeer` bytes cannot be
    /// taken where `freeBytes` of `totalBytes` are free; nil if it can.
    public func refusal(size: Int64, fromPeer: Int64, freeBytes: Int64, totalBytes: Int64) -> String? {
        if size > maxFileBytes {
            return "the file is \(Self.spoken(size)), more than the \(Self.spoken(maxFileBytes)) this machine takes (`receive --max-size`)"
        }
        if fromPeer + size > perPeerBytes {
            return
                "this machine takes at most \(Self.spoken(perPeerBytes)) from one machine while `receive` runs (`--quota`); \(Self.spoken(fromPeer)) came already"
        }
        let reserve = reserve(ofFilesystem: totalBytes)
        if freeBytes - size < reserve {
            return
                "the file is \(Self.spoken(size)) and only \(Self.spoken(max(0, freeBytes - reserve))) may be used on the receiving disk (it keeps \(Self.spoken(reserve)) free)"
        }
        return nil
    }

    /// Why writing must stop now that `freeBytes` of `totalBytes` are free with `remaining` bytes
    /// still to come; nil to go on.
    public func stopWriting(remaining: Int64, freeBytes: Int64, totalBytes: Int64) -> String? {
        let reserve = reserve(ofFilesystem: totalBytes)
        guard freeBytes - remaining < reserve else { return nil }
        return "the receiving disk is filling up (\(Self.spoken(freeBytes)) free, \(Self.spoken(reserve)) kept free); the transfer stopped"
    }

    /// `1536`, `64K`, `10M`, `2G`, `1T` (powers of 1024); nil for anything else.
    public static func parseSize(_ text: String) -> Int64? {
        guard let last = text.last else { return nil }
        let shifts: [Character: Int64] = ["K": 10, "M": 20, "G": 30, "T": 40]
        let (digits, shift) = shifts[Character(last.uppercased())].map { (text.dropLast(), $0) } ?? (Substring(text), 0)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int64(digits), n >= 0, n <= Int64.max >> shift else { return nil }
        return n << shift
    }

    static func spoken(_ n: Int64) -> String {
        if n >= 1 << 30 { return "\((Double(n) / Double(1 << 30)).fixedPoint(1)) GiB" }
        if n >= 1 << 20 { return "\((Double(n) / Double(1 << 20)).fixedPoint(1)) MiB" }
        if n >= 1 << 10 { return "\((Double(n) / Double(1 << 10)).fixedPoint(1)) KiB" }
        return "\(n) bytes"
    }
}

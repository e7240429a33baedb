/// The progress line of a file transfer (`handoffctl send-file` and `receive`), as text: pure, so
/// that what a person reads is tested. Sizes and rates in binary units alike (MiB, MiB/s), the
/// time left from the rate so far, and, when nothing moved for a while, what it waits for.
public struct TransferProgress: Sendable, Equatable {
    public var label: String
    public var total: Int64
    public var done: Int64
    /// Seconds since the transfer started.
    public var elapsed: Double
    /// Seconds since the last byte moved.
    public var idle: Double

    /// Nothing moved for this long: the line says it waits, and for how long it will.
    public static let stalledAfter = 2.0

    public init(label: String, total: Int64, done: Int64, elapsed: Double, idle: Double) {
        (self.label, self.total, self.done, self.elapsed, self.idle) = (label, total, done, elapsed, idle)
    }

    /// The line, without a carriage return; `waiting` says what it waits for when stalled (the
    /// link, with how long it may take), `phase` replaces the rate once every byte moved.
    public func line(waiting: String, phase: String? = nil, width: Int = 30) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        var text = "\(label) [\(bar)] \(Int(fraction * 100))% \(Self.size(done)) of \(Self.size(total))"
        if let phase {
            text += ", \(phase)"
        } else if idle >= Self.stalledAfter && done < total {
            text += ", \(waiting) (\(Int(idle)) s)"
        } else if elapsed > 0, done > 0 {
            let rate = Double(done) / elapsed
            text += ", \(Self.size(Int64(rate)))/s"
            if done < total { text += ", \(Self.left(Double(total - done) / rate)) left" }
        }
        return text
    }

    public static func size(_ n: Int64) -> String {
        if n >= 1 << 30 { return "\((Double(n) / Double(1 << 30)).fixedPoint(2)) GiB" }
        if n >= 1 << 20 { return "\((Double(n) / Double(1 << 20)).fixedPoint(1)) MiB" }
        if n >= 1 << 10 { return "\((Double(n) / Double(1 << 10)).fixedPoint(1)) KiB" }
        return "\(n) B"
    }

    /// "42 s", "3 min 5 s", "2 h 10 min".
    static func left(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }
}

extension Double {
    /// The number with `digits` digits after the point, rounded half away from zero: what
    /// `String(format: "%.2f")` gave (Foundation's, with ICU; not in FoundationEssentials), for
    /// numbers whose scaled value is below 2^53 (progress figures, seconds, sizes).
    public func fixedPoint(_ digits: Int) -> String {
        guard isFinite else { return "\(self)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(self) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e18 else { return "\(self)" }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale), fraction = units % UInt64(scale)
        let sign = sign == .minus ? "-" : ""
        guard digits > 0 else { return "\(sign)\(whole)" }
        let text = String(fraction)
        return "\(sign)\(whole).\(String(repeating: "0", count: digits - text.count))\(text)"
    }
}

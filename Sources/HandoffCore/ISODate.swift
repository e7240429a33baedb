#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// ISO 8601 / RFC 3339 dates written and read by our own code, losslessly.
///
/// Foundation's ISO8601DateFormatter is not used on anything a client or a peer sends: ICU dies
/// with SIGFPE on a fraction of 35 or more digits, clamps far dates and keeps only milliseconds.
/// Here a date is written with the shortest fraction that reads back to the same `Date` (at least
/// milliseconds, for the familiar form), and reading is strict: `YYYY-MM-DDTHH:MM:SS`, an
/// optional fraction of at most `maxFractionDigits`, then `Z` or `±HH:MM`. Years 1 to 9999 only.
public enum ISODate {
    public static let maxFractionDigits = 40
    /// 0001-01-01T00:00:00Z and the first instant after 9999-12-31T23:59:59.999…Z, as seconds
    /// since 2001-01-01 (Date's reference).
    public static let earliest: Double = -63_113_904_000
    public static let endOfRange: Double = 252_423_993_600

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let text: String
        public let reason: String
        public var description: String {
            "'\(text.prefix(64))' is not a date: \(reason); write it as 2026-11-21T20:00:00Z or 2026-11-21T20:00:00.250+01:00"
        }
    }

    public static func isInRange(_ date: Date) -> Bool {
        let t = date.timeIntervalSinceReferenceDate
        return t >= earliest && t < endOfRange
    }

    // MARK: - Writing

    /// The text of `date` in UTC. A date outside years 1-9999 is written with its full year (and
    /// sign), which `parse` then refuses: never clamped into range.
    public static func string(_ date: Date) -> String {
        let t = date.timeIntervalSinceReferenceDate
        guard t.isFinite else { return "invalid" }
        // The calendar second and its fraction are cut from the shortest decimal that reads back
        // as `t`, in decimal, so that `parse` (which reads that decimal back whole) gives `t` again.
        let (negative, intDigits, fracDigits) = decimal(t)
        var whole = Int64(intDigits) ?? 0
        var digits = fracDigits
        if negative {
            whole = -whole
            if !digits.isEmpty {
                whole -= 1
                digits = complement(digits)
            }
        }
        let unix = whole + 978_307_200
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secondOfDay = unix - days * 86_400
        let (y, m, d) = civil(days: days)
        var out =
            year(y) + "-" + two(m) + "-" + two(d) + "T" + two(secondOfDay / 3600) + ":" + two(secondOfDay / 60 % 60) + ":"
            + two(secondOfDay % 60)
        while digits.count < 3 { digits.append("0") }
        out += "." + digits + "Z"
        return out
    }

    private static func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }

    private static func year(_ y: Int64) -> String {
        if (0...9999).contains(y) {
            let s = String(y)
            return String(repeating: "0", count: 4 - s.count) + s
        }
        return (y < 0 ? "-" : "+") + String(y.magnitude)
    }

    /// The shortest round-trip decimal of `v` (Swift's description) in positional form: sign,
    /// integer digits, fraction digits without trailing zeros.
    static func decimal(_ v: Double) -> (Bool, String, String) {
        var text = v.magnitude.description  // "12.25" or "1.5e-05" or "2.5e+11"
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let intPart = String(parts[0]), fracPart = parts.count > 1 ? String(parts[1]) : ""
        let all = intPart + fracPart
        let pointAt = intPart.count + exponent
        var i: String, f: String
        if pointAt <= 0 {
            i = "0"
            f = String(repeating: "0", count: -pointAt) + all
        } else if pointAt >= all.count {
            i = all + String(repeating: "0", count: pointAt - all.count)
            f = ""
        } else {
            i = String(all.prefix(pointAt))
            f = String(all.dropFirst(pointAt))
        }
        while f.hasSuffix("0") { f.removeLast() }
        while i.count > 1 && i.hasPrefix("0") { i.removeFirst() }
        return (v.sign == .minus && (i != "0" || !f.isEmpty), i, f)
    }

    /// 1 − 0.digits, as digits of the same length (digits not all zero).
    static func complement(_ digits: String) -> String {
        var out = [UInt8](repeating: 0, count: digits.utf8.count)
        var borrow = 0
        let d = Array(digits.utf8)
        for k in stride(from: d.count - 1, through: 0, by: -1) {
            var v = (k == d.count - 1 ? 10 : 9) - Int(d[k] - 0x30) - borrow
            borrow = 0
            if v < 0 {
                v += 10
                borrow = 1
            }
            out[k] = UInt8(v) + 0x30
        }
        var text = String(decoding: out, as: UTF8.self)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil_from_days).
    static func civil(days z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (days_from_civil).
    static func days(year y0: Int64, month m: Int64, day d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    // MARK: - Reading

    public static func parse(_ text: String) throws(Problem) -> Date {
        let b = Array(text.utf8)
        func fail(_ why: String) -> Problem { Problem(text: text, reason: why) }
        func number(_ at: Int, _ count: Int) throws(Problem) -> Int64 {
            guard at + count <= b.count else { throw fail("it ends early") }
            var v: Int64 = 0
            for i in at..<(at + count) {
                guard (0x30...0x39).contains(b[i]) else { throw fail("expected a digit at character \(i + 1)") }
                v = v * 10 + Int64(b[i] - 0x30)
            }
            return v
        }
        func expect(_ at: Int, _ c: Character) throws(Problem) {
            guard at < b.count, b[at] == c.asciiValue! else { throw fail("expected '\(c)' at character \(at + 1)") }
        }
        let y = try number(0, 4)
        try expect(4, "-")
        let mo = try number(5, 2)
        try expect(7, "-")
        let d = try number(8, 2)
        try expect(10, "T")
        let h = try number(11, 2)
        try expect(13, ":")
        let mi = try number(14, 2)
        try expect(16, ":")
        let s = try number(17, 2)
        guard y >= 1 else { throw fail("the year must be 0001 to 9999") }
        guard (1...12).contains(mo) else { throw fail("the month must be 01 to 12") }
        let monthDays: [Int64] = [31, (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard d >= 1 && d <= monthDays[Int(mo - 1)] else { throw fail("day \(d) does not exist in that month") }
        guard h <= 23, mi <= 59, s <= 59 else { throw fail("the time must be 00:00:00 to 23:59:59") }
        var i = 19
        var fraction = ""
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            let count = i - start
            guard count >= 1 else { throw fail("a '.' must be followed by digits") }
            guard count <= maxFractionDigits else { throw fail("more than \(maxFractionDigits) fraction digits") }
            fraction = String(decoding: b[start..<i], as: UTF8.self)
        }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        var offset: Int64 = 0
        guard i < b.count else { throw fail("it needs a time zone: Z or ±HH:MM") }
        switch b[i] {
        case UInt8(ascii: "Z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign: Int64 = b[i] == UInt8(ascii: "-") ? -1 : 1
            let oh = try number(i + 1, 2)
            var next = i + 3
            if next < b.count, b[next] == UInt8(ascii: ":") { next += 1 }
            let om = try number(next, 2)
            guard oh <= 23, om <= 59 else { throw fail("the time zone offset must be at most 23:59") }
            offset = sign * (oh * 3600 + om * 60)
            i = next + 2
        default:
            throw fail("it needs a time zone: Z or ±HH:MM")
        }
        guard i == b.count else { throw fail("unexpected text after the time zone") }
        let unix = days(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + s - offset
        // Seconds and fraction as one decimal, read once (correctly rounded): the inverse of `string`.
        let whole = unix - 978_307_200
        var text: String
        if fraction.isEmpty {
            text = String(whole)
        } else if whole >= 0 {
            text = "\(whole).\(fraction)"
        } else {
            text = "-\(-(whole + 1)).\(complement(fraction))"
        }
        guard let t = Double(text), t >= earliest && t < endOfRange else { throw fail("the year must be 0001 to 9999") }
        return Date(timeIntervalSinceReferenceDate: t)
    }
}

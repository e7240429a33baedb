#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// Writes property-list values as JSON (the mapping of docs/CONTROL.md) straight to bytes, keys
/// sorted. JSONSerialization needs every value boxed and sorts AnyHashable keys, which made it the
/// largest cost of a control answer.
public enum JSONWriter {
    public static func encode(_ value: PropertyListValue) -> [UInt8] {
        var out: [UInt8] = []
        // A control line with an activity in it (an event, a continue) runs to ~700 bytes: from
        // 256, it grew twice; and the line's newline is written in place, not by a copy.
        out.reserveCapacity(1_024)
        write(value, into: &out)
        return out
    }

    /// One line of the control protocol: the value, then a newline.
    public static func line(_ value: PropertyListValue) -> [UInt8] {
        var out = encode(value)
        out.append(0x0A)
        return out
    }

    /// One line of `fields` with `activity` under `key` (not among them): the same bytes as
    /// `line` of them all, the activity written from its fields in order. Building its
    /// dictionary and sorting it again for a push's `continue` line was a third of that line's
    /// instructions (docs/PERFORMANCE.md).
    public static func line(_ fields: [String: PropertyListValue], activity: UserActivity, under key: String) -> [UInt8] {
        assert(fields[key] == nil)
        var out: [UInt8] = []
        out.reserveCapacity(1_024)
        out.append(UInt8(ascii: "{"))
        var activityWritten = false
        func entry(_ k: String, _ value: (inout [UInt8]) -> Void) {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            string(k, into: &out)
            out.append(UInt8(ascii: ":"))
            value(&out)
        }
        for (k, v) in fields.sorted(by: { $0.key < $1.key }) {
            if !activityWritten && key < k {
                entry(key) { write(activity, into: &$0) }
                activityWritten = true
            }
            entry(k) { write(v, into: &$0) }
        }
        if !activityWritten { entry(key) { write(activity, into: &$0) } }
        out.append(UInt8(ascii: "}"))
        out.append(0x0A)
        return out
    }

    /// An activity's fields are in UTF-8 order, which is `<`'s for their ASCII names.
    private static func write(_ activity: UserActivity, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, (k, v)) in activity.orderedFields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            string(k, into: &out)
            out.append(UInt8(ascii: ":"))
            write(v, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Indented, `"key" : value`, keys sorted: the layout of JSONSerialization's pretty printing,
    /// which scripts that read `handoffctl --json` match on.
    public static func pretty(_ value: PropertyListValue) -> [UInt8] {
        var out: [UInt8] = []
        writePretty(value, indent: 0, into: &out)
        return out
    }

    private static func writePretty(_ value: PropertyListValue, indent: Int, into out: inout [UInt8]) {
        func newline(_ level: Int) {
            out.append(0x0A)
            out += [UInt8](repeating: 0x20, count: 2 * level)
        }
        switch value {
        case .array(let a) where !a.isEmpty:
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                writePretty(v, indent: indent + 1, into: &out)
            }
            newline(indent)
            out.append(UInt8(ascii: "]"))
        case .dictionary(let d) where !d.isEmpty && !(d.count == 1 && d.keys.first!.hasPrefix("$")):
            out.append(UInt8(ascii: "{"))
            for (i, (k, v)) in d.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                string(k, into: &out)
                out += Array(" : ".utf8)
                writePretty(v, indent: indent + 1, into: &out)
            }
            newline(indent)
            out.append(UInt8(ascii: "}"))
        default:
            // Scalars, tags, empty containers and lone $-keys: as on one line.
            write(value, into: &out)
        }
    }

    static func write(_ value: PropertyListValue, into out: inout [UInt8]) {
        switch value {
        case .string(let s): string(s, into: &out)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .real(let r):
            if !r.isFinite {
                // JSON has no NaN or infinity; the tag carries them as text.
                out += Array(#"{"$real":""#.utf8) + Array((r.isNaN ? "nan" : (r < 0 ? "-inf" : "inf")).utf8) + Array(#""}"#.utf8)
            } else if r.rounded() == r {
                // A whole real would read back as an integer: tag it.
                out += Array(#"{"$real":"#.utf8) + Array(String(r).utf8) + [UInt8(ascii: "}")]
            } else {
                out += Array(String(r).utf8)
            }
        case .date(let d):
            out += Array(#"{"$date":"#.utf8)
            string(ISODate.string(d), into: &out)
            out.append(UInt8(ascii: "}"))
        case .data(let d):
            out += Array(#"{"$data":""#.utf8) + Array(d.base64EncodedString().utf8) + Array(#""}"#.utf8)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let d):
            out.append(UInt8(ascii: "{"))
            // A lone key that starts with "$" would read back as a tag: it gets one more "$".
            let escape = d.count == 1 && d.keys.first!.hasPrefix("$")
            // Sorted as pairs: sorting the keys and looking each up again hashed every key twice.
            for (i, (k, v)) in d.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                string(escape ? "$" + k : k, into: &out)
                out.append(UInt8(ascii: ":"))
                write(v, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func string(_ s: String, into out: inout [UInt8]) {
        // Printable ASCII with nothing to escape, most of what is written: one copy, not a byte
        // at a time (a push's event line, perf).
        let plain = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.allSatisfy(isPlain) else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if plain == true { return }
        let start = out.count
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            if b >= 0x80 {
                // Non-ASCII: written as is, except display controls (C1 such as CSI, bidi
                // overrides, line separators), escaped so that no terminal acts on a peer's text.
                out.removeSubrange(start...)
                return scalars(s, into: &out)
            }
            ascii(b, into: &out)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The slower path of `string`, scalar by scalar.
    private static func scalars(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            if scalar.isASCII {
                ascii(UInt8(scalar.value), into: &out)
            } else if scalar.isDisplayControl {
                escape(scalar.value, into: &out)
            } else {
                out += Array(String(scalar).utf8)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Printable ASCII that JSON takes as it is: not a quote, a backslash, a control or DEL.
    private static func isPlain(_ b: UInt8) -> Bool {
        b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\")
    }

    private static func ascii(_ b: UInt8, into out: inout [UInt8]) {
        if isPlain(b) {
            out.append(b)
            return
        }
        switch b {
        case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        default: escape(UInt32(b), into: &out)  // the other controls and DEL
        }
    }

    private static func escape(_ v: UInt32, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out += Array("\\u".utf8)
        for shift in [12, 8, 4, 0] { out.append(hex[Int((v >> UInt32(shift)) & 0xF)]) }
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// Reads one JSON text straight into a property-list value (the mapping of docs/CONTROL.md),
/// within `CodecLimits`.
///
/// Not JSONSerialization: it turned -9223372036854775807 into a real, rounded some reals
/// (2.0000000000052296), took the last of two equal keys, and its values went on to
/// ISO8601DateFormatter, which ICU kills with SIGFPE on a long fraction. Here integers stay
/// integers (or are refused when they do not fit 64 bits), reals are read correctly rounded,
/// dates by `ISODate`, and every container, key and number is bounded before it is built.
struct JSONReader {
    static let maxNumberLength = 400

    private let bytes: [UInt8]
    private let limits: CodecLimits
    private var i = 0
    private var values = 0
    /// Where the reader is, spelled only for an error: the path was a string built for every
    /// value read, a tenth of a request's decoding (perf, a push).
    private var steps: [PathStep] = []
    private enum PathStep {
        case key(String)
        case index(Int)
    }
    private var path: String {
        steps.reduce(into: "$") { text, step in
            switch step {
            case .key(let key): text += ".\(key)"
            case .index(let n): text += "[\(n)]"
            }
        }
    }

    private init(_ bytes: [UInt8], limits: CodecLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    static func read(_ bytes: [UInt8], limits: CodecLimits) throws(JSONValue.Problem) -> PropertyListValue {
        var r = JSONReader(bytes, limits: limits)
        r.skipSpace()
        let v = try r.value(depth: 1)
        r.skipSpace()
        guard r.i == r.bytes.count else { throw .notJSON("unexpected text after the value at byte \(r.i)") }
        return v
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
    }

    private func syntax(_ what: String) -> JSONValue.Problem { .notJSON("\(what) at byte \(i)") }

    private mutating func value(depth: Int) throws(JSONValue.Problem) -> PropertyListValue {
        values += 1
        if values > limits.maxValues { throw .limit("more than \(limits.maxValues) values") }
        guard i < bytes.count else { throw syntax("the text ends early") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            throw .unsupported(path: path, what: "null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw syntax("unexpected character")
        }
    }

    private mutating func literal(_ word: String) throws(JSONValue.Problem) {
        let w = Array(word.utf8)
        guard bytes.count - i >= w.count, Array(bytes[i..<(i + w.count)]) == w else { throw syntax("unexpected word") }
        i += w.count
    }

    private mutating func array(depth: Int) throws(JSONValue.Problem) -> PropertyListValue {
        if depth > limits.maxDepth { throw .limit("nested deeper than \(limits.maxDepth)") }
        i += 1
        var out: [PropertyListValue] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            i += 1
            return .array(out)
        }
        while true {
            skipSpace()
            steps.append(.index(out.count))
            out.append(try value(depth: depth + 1))
            steps.removeLast()
            skipSpace()
            guard i < bytes.count else { throw syntax("an array is not closed") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(out)
            }
            throw syntax("expected ',' or ']'")
        }
    }

    private mutating func object(depth: Int) throws(JSONValue.Problem) -> PropertyListValue {
        if depth > limits.maxDepth { throw .limit("nested deeper than \(limits.maxDepth)") }
        i += 1
        var out: [String: PropertyListValue] = [:]
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
            return .dictionary(out)
        }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw syntax("expected a key") }
            let key = try string()
            // The key as read (escapes resolved): `\u007f` is one byte of key, not six.
            if key.utf8.count > limits.maxKeyBytes {
                throw .limit("a key at \(path) is longer than \(limits.maxKeyBytes) bytes")
            }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw syntax("expected ':'") }
            i += 1
            skipSpace()
            // Keys compare by canonical equivalence: two spellings of one key are refused, never
            // merged. One lookup, the insertion's (a look first hashed every key twice).
            steps.append(.key(key))
            if out.updateValue(try value(depth: depth + 1), forKey: key) != nil { throw .unsupported(path: path, what: "a repeated key") }
            steps.removeLast()
            skipSpace()
            guard i < bytes.count else { throw syntax("an object is not closed") }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if bytes[i] == UInt8(ascii: "}") {
                i += 1
                break
            }
            throw syntax("expected ',' or '}'")
        }
        guard out.count == 1, let (k, v) = out.first, k.hasPrefix("$") else { return .dictionary(out) }
        // A lone key of the value's own that starts with "$" was written with one more "$" (JSONWriter).
        if k.hasPrefix("$$") { return .dictionary([String(k.dropFirst()): v]) }
        return try Self.tagged(k, v, path: path)
    }

    /// `{"$real": …}`, `{"$date": …}`, `{"$data": …}`: the kinds JSON lacks.
    static func tagged(_ tag: String, _ v: PropertyListValue, path: String) throws(JSONValue.Problem) -> PropertyListValue {
        switch (tag, v) {
        case ("$real", .integer(let n)): return .real(Double(n))
        case ("$real", .real(let r)): return .real(r)
        case ("$real", .string("inf")): return .real(.infinity)
        case ("$real", .string("-inf")): return .real(-.infinity)
        case ("$real", .string("nan")): throw .unsupported(path: path, what: "NaN (a real must be a number, inf or -inf)")
        case ("$date", .string(let s)):
            do throws(ISODate.Problem) { return .date(try ISODate.parse(s)) } catch {
                throw .unsupported(path: path, what: error.description)
            }
        case ("$data", .string(let s)):
            guard let data = Data(base64Encoded: s) else { throw .unsupported(path: path, what: "base64 '\(s.prefix(20))'") }
            return .data(data)
        case ("$real", _), ("$date", _), ("$data", _):
            throw .unsupported(path: path, what: "\(tag) holding \(v.kindName)")
        default:
            throw .unsupported(
                path: path, what: "the tag \(tag.prefix(20)) (known: $real, $date, $data; a lone key that starts with $ is written $$)")
        }
    }

    private mutating func number() throws(JSONValue.Problem) -> PropertyListValue {
        let start = i
        var isInteger = true
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else { throw syntax("a number needs digits") }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw syntax("a '.' needs digits after it") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw syntax("an exponent needs digits") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i - start > Self.maxNumberLength { throw .limit("a number longer than \(Self.maxNumberLength) characters") }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if isInteger {
            guard let n = Int64(text) else {
                throw .unsupported(path: path, what: "the integer \(text.prefix(24)) (integers must fit 64 bits; write a real as {\"$real\": …})")
            }
            return .integer(n)
        }
        guard let r = Double(text), r.isFinite else { throw .unsupported(path: path, what: "the number \(text.prefix(24)) (out of range)") }
        return .real(r)
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    private mutating func string() throws(JSONValue.Problem) -> String {
        i += 1
        // Most strings have no escape: made from their bytes where they lie, not a byte at a time.
        let start = i
        while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\"), bytes[i] >= 0x20 { i += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
            guard let s = String(validUTF8: bytes[start..<i]) else { throw syntax("a string is not valid UTF-8") }
            i += 1
            return s
        }
        var out = Array(bytes[start..<i])
        while true {
            guard i < bytes.count else { throw syntax("a string is not closed") }
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "\""):
                i += 1
                guard let s = String(validUTF8: out[...]) else { throw syntax("a string is not valid UTF-8") }
                return s
            case UInt8(ascii: "\\"):
                i += 1
                guard i < bytes.count else { throw syntax("a string is not closed") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard bytes.count - i >= 6, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw syntax("a lone surrogate")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw syntax("a lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw syntax("a lone surrogate")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    throw syntax("an unknown escape")
                }
            case 0..<0x20:
                throw syntax("a control character inside a string")
            default:
                out.append(b)
                i += 1
            }
        }
    }

    private mutating func hex4() throws(JSONValue.Problem) -> UInt32 {
        guard bytes.count - i >= 4 else { throw syntax("a \\u escape needs four hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: throw syntax("a \\u escape needs four hex digits")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }
}

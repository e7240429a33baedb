import Foundation
import HandoffCore
import HandoffTestSupport
import Testing
@testable import HandoffControl

/// What a local client (or a peer's values relayed in events)
/// could do to the control JSON.
@Suite struct HostileControlTests {
    /// Item 0: this line made ICU die with SIGFPE inside ISO8601DateFormatter, killing handoffd
    /// (and, relayed in an event, the app's HandoffClient). Now it is a clear error.
    @Test func aDateWithAHugeFractionIsAnErrorNotACrash() throws {
        let line = Array(#"{"":{"$date":"2-1-1T0:2:4.50055555555555555555555555555555555"}}"#.utf8)
        #expect(throws: JSONValue.Problem.self) { try JSONValue.parse(line) }
        let request = Array(#"{"op":"publish","x":{"$date":"2026-01-01T00:02:04.500555555555555555555555555555555555555555Z"}}"#.utf8)
        #expect(throws: ControlError.self) { try ControlRequest(line: request) }
        // 35 digits, a valid date otherwise: read (and rounded to the nearest double), never a crash.
        let ok = try JSONValue.parse(Array(#"{"$date":"2026-01-01T00:02:04.50055555555555555555555555555555555Z"}"#.utf8))
        #expect(ok.dateValue != nil)
    }

    @Test(arguments: [
        "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00",
        "2026-01-01 00:00:00Z", "0000-01-01T00:00:00Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00Z junk",
        "+12345-01-01T00:00:00Z", "2026-01-01T00:00:00+24:00"
    ])
    func strictDates(_ text: String) {
        #expect(throws: ISODate.Problem.self) { try ISODate.parse(text) }
    }

    @Test func datesReadWithZonesAndFractions() throws {
        #expect(try ISODate.parse("2026-11-21T20:00:00Z") == Date(timeIntervalSince1970: 1_795_291_200))
        #expect(try ISODate.parse("2026-11-21T21:30:00+01:30") == Date(timeIntervalSince1970: 1_795_291_200))
        #expect(try ISODate.parse("2026-11-21T20:00:00.250-0000") == Date(timeIntervalSince1970: 1_795_291_200.25))
        #expect(try ISODate.parse("0001-01-01T00:00:00Z").timeIntervalSinceReferenceDate == ISODate.earliest)
        #expect(ISODate.string(Date(timeIntervalSince1970: 1_795_291_200)) == "2026-11-21T20:00:00.000Z")
    }

    /// Item 12: values that came back different through JSONSerialization and the formatter.
    @Test(arguments: [
        PropertyListValue.integer(-9_223_372_036_854_775_807), .integer(.min), .integer(.max), .real(2.0000000000052296),
        .real(0.1), .real(-1e-300), .real(.leastNonzeroMagnitude), .real(1.7976931348623157e308), .real(-0.0),
        .date(Date(timeIntervalSinceReferenceDate: 12_345.678_901_234_567)), .date(Date(timeIntervalSinceReferenceDate: -1e-6)),
        .date(Date(timeIntervalSinceReferenceDate: ISODate.endOfRange - 0.001)),
        .date(Date(timeIntervalSinceReferenceDate: ISODate.earliest)), .date(Date(timeIntervalSince1970: 1.5e-7))
    ])
    func losslessThroughText(_ value: PropertyListValue) throws {
        let back = try JSONValue.parse(JSONWriter.encode(["v": value]))
        #expect(back == ["v": value])
        if case .date(let d) = value {
            #expect(try ISODate.parse(ISODate.string(d)).timeIntervalSinceReferenceDate.bitPattern == d.timeIntervalSinceReferenceDate.bitPattern)
        }
    }

    /// A far date is never clamped into range: it is written with its real year and refused on reading.
    @Test func farDatesAreRefusedNotClamped() {
        let far = Date(timeIntervalSinceReferenceDate: ISODate.endOfRange + 86_400 * 400)
        #expect(ISODate.string(far).hasPrefix("+10001-"))
        #expect(throws: JSONValue.Problem.self) { try JSONValue.parse(JSONWriter.encode(["v": .date(far)])) }
        #expect(throws: CodecError.self) { try CanonicalEncoder().encode(.date(far)) }
    }

    /// Item 12, as a property: random values through our writer and reader come back equal.
    @Test func randomValuesRoundTrip() throws {
        var rng = SplitMix64(seed: 0x5EED)
        for _ in 0..<3_000 {
            let v = rng.value(depth: 0)
            let text = JSONWriter.encode(v)
            let back = try JSONValue.parse(text, limits: CodecLimits(maxDepth: 64, maxValues: 100_000, maxBytes: 1 << 24))
            #expect(back == v, "\(String(decoding: text, as: UTF8.self))")
        }
    }

    /// Item 11: a one-key dictionary whose key starts with "$" read back as a tag (another kind of
    /// value, or an unreadable line). Such keys are now escaped.
    @Test(arguments: ["$date", "$real", "$data", "$", "$$x", "$unknown"])
    func dollarKeysRoundTrip(_ key: String) throws {
        let value: PropertyListValue = ["outer": .dictionary([key: "2026-01-01T00:00:00Z"])]
        #expect(try JSONValue.parse(JSONWriter.encode(value)) == value)
        #expect(try JSONValue.parse(Array(JSONValue.text(value).utf8)) == value)
    }

    /// Item 11: one id, many spellings.
    @Test func onlyCanonicalUUIDs() throws {
        let id = UUID()
        let upper = try ControlRequest(line: Array(#"{"op":"x","activity":"\#(id.uuidString)"}"#.utf8))
        #expect(try upper.uuid("activity") == id)
        for spelling in [id.uuidString.lowercased(), "{\(id.uuidString)}", " \(id.uuidString)"] {
            let r = try ControlRequest(line: Array(#"{"op":"x","activity":"\#(spelling)"}"#.utf8))
            #expect(throws: ControlError.self) { try r.uuid("activity") }
        }
        #expect(UUID(canonical: id.uuidString.lowercased()) == nil)
    }

    /// Item 10: keys with long runs of combining marks hash in quadratic time; keys are bounded.
    @Test func longKeysAreRefused() throws {
        let key = "a" + String(repeating: "\u{301}\u{316}", count: 600)
        let line = Array(#"{"op":"x","\#(key)":1}"#.utf8)
        #expect(throws: ControlError.self) { try ControlRequest(line: line) }
        #expect(throws: CodecError.self) { try CanonicalEncoder().encode(.dictionary([key: 1])) }
        var bytes = try CanonicalEncoder(limits: CodecLimits(maxKeyBytes: 1 << 20)).encode(.dictionary([key: 1]))
        #expect(throws: CodecError.self) { try BoundedDecoder().decode(bytes) }
        bytes = try CanonicalEncoder().encode(.dictionary(["a" + String(repeating: "\u{301}", count: 300): 1]))
        #expect(throws: Never.self) { try BoundedDecoder().decode(bytes) }
    }

    /// Found by fuzz-control-line: a key near the limit, made of characters the writer escapes,
    /// was measured escaped (six bytes a character) and refused when read back.
    @Test func aKeyIsMeasuredAsRead() throws {
        let key = String(repeating: "\u{7F}", count: 1_000)
        let value: PropertyListValue = ["k": .dictionary([key: 1, "x": 2])]
        #expect(try JSONValue.parse(JSONWriter.encode(value)) == value)
    }

    /// Not JSON in the strict sense: JSONSerialization let some through and merged repeated keys.
    @Test(arguments: [
        #"{"op":"x","a":1,"a":2}"#, #"{"op":"x","a":1e999}"#, #"{"op":"x","a":99999999999999999999}"#,
        #"{"op":"x","a":"\ud800"}"#, #"{"op":"x","a":{"$real":"nan"}}"#, #"{"op":"x"} x"#, "{\"op\":\"x\",\"a\":\"\u{01}\"}"
    ])
    func malformedLinesAreRefused(_ line: String) {
        #expect(throws: ControlError.self) { try ControlRequest(line: Array(line.utf8)) }
    }

    /// An error names where in the value it is (the path is spelled only when one is thrown).
    @Test func aRefusedValueIsNamedByItsPath() {
        let cases: [(String, JSONValue.Problem)] = [
            (#"{"a":[1,{"b":null}]}"#, .unsupported(path: "$.a[1].b", what: "null")),
            (#"{"a":{"b":1,"b":2}}"#, .unsupported(path: "$.a.b", what: "a repeated key")),
            (
                #"[0,[1,99999999999999999999]]"#,
                .unsupported(path: "$[1][1]", what: "the integer 99999999999999999999 (integers must fit 64 bits; write a real as {\"$real\": …})")
            ),
            (#"{"x":[1],"y":{"$real":"nan"}}"#, .unsupported(path: "$.y", what: "NaN (a real must be a number, inf or -inf)"))
        ]
        for (text, problem) in cases {
            #expect(throws: problem, "\(text)") { try JSONValue.parse(Array(text.utf8)) }
        }
    }

    /// Item 1: our JSON output escapes display controls, so `--json` and `watch` print nothing a
    /// terminal acts on.
    @Test func writerEscapesDisplayControls() throws {
        let hostile = "n\u{1B}[8m\u{9B}\u{202E}\u{2028}é"
        let text = JSONValue.text(["v": .string(hostile)])
        #expect(text == #"{"v":"n\u001b[8m\u009b\u202e\u2028é"}"#)
        #expect(try JSONValue.parse(Array(text.utf8)) == ["v": .string(hostile)])
    }
}

@Suite struct PrettyJSONTests {
    /// handoffctl --json: the layout scripts match on (`"avahi" : "up"`), and it reads back equal.
    @Test func prettyIsIndentedAndReadsBack() throws {
        let v: PropertyListValue = [
            "avahi": "up", "peers": [["name": "b", "n": 1]], "e": [], "t": .date(Date(timeIntervalSince1970: 5)), "o": ["$k": 1]
        ]
        let text = String(decoding: JSONWriter.pretty(v), as: UTF8.self)
        #expect(text.contains(#"  "avahi" : "up","#))
        #expect(text.contains("\n    {\n      \"n\" : 1,"))
        #expect(try JSONValue.parse(Array(text.utf8)) == v)
        var rng = SplitMix64(seed: 42)
        for _ in 0..<500 {
            let r = rng.value(depth: 0)
            #expect(try JSONValue.parse(JSONWriter.pretty(r), limits: CodecLimits(maxDepth: 64, maxValues: 100_000, maxBytes: 1 << 24)) == r)
        }
    }
}

/// Property-list values from a deterministic generator.
extension SplitMix64 {
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    mutating func string() -> String {
        let pool: [Unicode.Scalar] = ["a", "$", "\"", "\\", "\n", "\u{0}", "\u{1B}", "é", "\u{9B}", "\u{202E}", "🦅", "\u{301}", " "]
        var s = ""
        for _ in 0..<below(8) { s.unicodeScalars.append(pool[below(pool.count)]) }
        return s
    }

    mutating func value(depth: Int) -> PropertyListValue {
        switch below(depth > 3 ? 6 : 8) {
        case 0: return .string(string())
        case 1: return .integer(Int64(bitPattern: next()) >> Int64(below(64)))
        case 2:
            var r = Double(bitPattern: next())
            while r.isNaN { r = Double(bitPattern: next()) }
            return .real(r)
        case 3: return .bool(below(2) == 0)
        case 4:
            let t = ISODate.earliest + Double(next() % UInt64(ISODate.endOfRange - ISODate.earliest)) + Double(below(1_000_000)) / 1e6
            return .date(Date(timeIntervalSinceReferenceDate: t))
        case 5: return .data(Data((0..<below(6)).map { _ in UInt8(below(256)) }))
        case 6: return .array((0..<below(4)).map { _ in value(depth: depth + 1) })
        default:
            var d: [String: PropertyListValue] = [:]
            for _ in 0..<below(4) { d[string()] = value(depth: depth + 1) }
            return .dictionary(d)
        }
    }
}

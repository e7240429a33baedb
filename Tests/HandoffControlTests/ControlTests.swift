import Foundation
import HandoffCore
import HandoffTestSupport
import Testing
@testable import HandoffControl

@Suite struct LineFramerTests {
    @Test func splitsAcrossChunks() {
        var f = LineFramer(maxLine: 100)
        #expect(f.feed(Array("{\"op\":".utf8)).isEmpty)
        #expect(
            f.feed(Array("\"status\"}\n{\"op\":\"peers\"}\r\n".utf8)) == [
                .line(Array("{\"op\":\"status\"}".utf8)), .line(Array("{\"op\":\"peers\"}".utf8))
            ])
    }

    @Test func tooLongLineIsReportedOnceAndSkipped() {
        var f = LineFramer(maxLine: 10)
        let out = f.feed(Array(String(repeating: "x", count: 25).utf8)) + f.feed(Array("yyyy\nok\n".utf8))
        #expect(out == [.tooLong(limit: 10), .line(Array("ok".utf8))])
    }

    /// The chunked reader says exactly what the byte-at-a-time one it replaced said, however the
    /// stream is cut: lines at and around the limit, CR LF, empty lines, long lines across chunks.
    @Test func readsAsTheByteAtATimeFramerDidHoweverTheStreamIsCut() {
        var random = SplitMix64(seed: 27)
        for _ in 0..<300 {
            let limit = Int(random.next() % 12) + 1
            let stream: [UInt8] = (0..<Int(random.next() % 80)).map { _ in [0x0A, 0x0D, 0x61, 0x62, 0x63][Int(random.next() % 5)] }
            var chunked = LineFramer(maxLine: limit)
            var reference = ByteFramer(maxLine: limit)
            var got: [LineFramer.Item] = [], want: [LineFramer.Item] = []
            var rest = stream[...]
            while !rest.isEmpty {
                let n = min(rest.count, Int(random.next() % 9) + 1)
                got += chunked.feed(rest.prefix(n))
                for b in rest.prefix(n) { want += reference.feed(b) }
                rest = rest.dropFirst(n)
            }
            #expect(got == want, "limit \(limit), stream \(stream)")
        }
    }
}

/// A framer that reads one byte at a time: the reference the test compares with.
private struct ByteFramer {
    let maxLine: Int
    var pending: [UInt8] = []
    var skipping = false

    mutating func feed(_ b: UInt8) -> [LineFramer.Item] {
        if b == 0x0A {
            defer {
                pending.removeAll()
                skipping = false
            }
            return skipping ? [] : [.line(pending.last == 0x0D ? Array(pending.dropLast()) : pending)]
        }
        guard !skipping else { return [] }
        pending.append(b)
        guard pending.count > maxLine else { return [] }
        pending = []
        skipping = true
        return [.tooLong(limit: maxLine)]
    }
}

@Suite struct JSONValueTests {
    static let values: [PropertyListValue] = [
        "s", 1, -7, 1.5, .real(2.0), true, false, .date(Date(timeIntervalSince1970: 1_700_000_000.25)),
        .data(Data([0, 1, 255])), [1, "a", [true]], ["k": ["n": .real(0.5)], "e": [:]]
    ]

    @Test(arguments: values)
    func roundTripsThroughJSONText(_ value: PropertyListValue) throws {
        let text = try JSONSerialization.data(withJSONObject: ["v": JSONValue.object(value)])
        let back = try JSONValue.propertyList(from: JSONSerialization.jsonObject(with: text))
        #expect(back == ["v": value])
    }

    /// Our writer's text reads back through JSONSerialization to the same value, for awkward
    /// strings and the reals JSON cannot carry as numbers.
    @Test(arguments: values + ["quote \" back \\ nl \n tab \t bell \u{07} é 🦅", .real(.infinity), .real(-.infinity), .real(1e-7), .real(-3e21)])
    func writerRoundTrips(_ value: PropertyListValue) throws {
        let text = JSONWriter.encode(["v": value])
        let back = try JSONValue.propertyList(from: JSONSerialization.jsonObject(with: Data(text)))
        #expect(back == ["v": value])
    }

    /// NaN is not equal to itself, so a value holding it never round-trips: every reader
    /// refuses it, with the reason.
    @Test func writerSortsKeysAndNaNIsRefused() throws {
        #expect(JSONValue.text(["b": 1, "a": 2, "$": "x"]) == #"{"$":"x","a":2,"b":1}"#)
        #expect(throws: JSONValue.Problem.self) { try JSONValue.parse(JSONWriter.encode(["v": .real(.nan)])) }
        #expect(throws: JSONValue.Problem.self) {
            try JSONValue.propertyList(from: JSONSerialization.jsonObject(with: Data(JSONWriter.encode(["v": .real(.nan)]))))
        }
    }

    @Test func limitsAndNulls() throws {
        #expect(throws: JSONValue.Problem.unsupported(path: "$.a[1]", what: "null")) {
            try JSONValue.propertyList(from: JSONSerialization.jsonObject(with: Data(#"{"a":[1,null]}"#.utf8)))
        }
        let deep = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
        #expect(throws: JSONValue.Problem.limit("nested deeper than 16")) {
            try JSONValue.propertyList(from: JSONSerialization.jsonObject(with: Data(deep.utf8)))
        }
        let wide = "[" + Array(repeating: "1", count: 5000).joined(separator: ",") + "]"
        #expect(throws: JSONValue.Problem.limit("more than 4096 values")) {
            try JSONValue.propertyList(from: JSONSerialization.jsonObject(with: Data(wide.utf8)))
        }
    }

    @Test func activitiesRoundTrip() throws {
        var a = UserActivity(type: try ActivityType("org.hawknotes.draftNote"), title: "Note")
        try a.addUserInfoEntries(["draftText": "hi", "when": .date(Date(timeIntervalSince1970: 5)), "n": 3])
        a.expirationDate = Date(timeIntervalSince1970: 99)
        let text = try JSONSerialization.data(withJSONObject: a.jsonObject)
        let back = try UserActivity(propertyList: JSONValue.propertyList(from: JSONSerialization.jsonObject(with: text)))
        #expect(back == a)
    }
}

@Suite struct TypedInfoTests {
    @Test func typedValues() throws {
        #expect(try TypedInfo.parse("name=Beatrice") == ("name", "Beatrice"))
        #expect(try TypedInfo.parse("page=int:42") == ("page", 42))
        #expect(try TypedInfo.parse("zoom=real:1.5") == ("zoom", 1.5))
        #expect(try TypedInfo.parse("done=bool:true") == ("done", true))
        #expect(try TypedInfo.parse("blob=data:AAH/") == ("blob", .data(Data([0, 1, 255]))))
        #expect(try TypedInfo.parse("at=date:2026-11-21T20:00:00Z") == ("at", .date(Date(timeIntervalSince1970: 1_795_291_200))))
        #expect(try TypedInfo.parse("url=https://example.org/x") == ("url", "https://example.org/x"))
        #expect(try TypedInfo.parse("lit=str:int:x") == ("lit", "int:x"))
        #expect(try TypedInfo.parse("empty=") == ("empty", ""))
    }

    @Test func errorsNameTheArgument() {
        for bad in ["novalue", "=x", "n=int:4.5", "b=bool:yes", "d=date:tomorrow", "x=data:!!"] {
            let e = #expect(throws: TypedInfo.Problem.self) { try TypedInfo.parse(bad) }
            #expect(e?.argument == bad)
        }
    }
}

@Suite struct ControlEnvelopeTests {
    @Test func requestsParse() throws {
        let r = try ControlRequest(line: Array(#"{"id": 7, "op": "resign", "activity": "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"}"#.utf8))
        #expect(r.id == 7 && r.op == "resign")
        #expect(try r.uuid("activity") == UUID(uuidString: "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"))
        #expect(throws: ControlError.badArgument(name: "scene", reason: "missing")) { try r.string("scene") }
        #expect(try ControlRequest(line: r.line) == r)
    }

    @Test func badRequestsAreTypedErrors() {
        #expect(throws: ControlError.notAnObject) { try ControlRequest(line: Array("[1]".utf8)) }
        #expect(throws: ControlError.missingOp) { try ControlRequest(line: Array(#"{"id":1}"#.utf8)) }
        #expect(throws: ControlError.badArgument(name: "id", reason: "must be an integer")) {
            try ControlRequest(line: Array(#"{"op":"x","id":"1"}"#.utf8))
        }
        let e = #expect(throws: ControlError.self) { try ControlRequest(line: Array("{nope".utf8)) }
        #expect(e?.code == "not-json")
    }

    @Test func responsesAndEvents() throws {
        let ok = try JSONSerialization.jsonObject(with: Data(ControlLine.ok(id: 3, result: ["n": 1]))) as! [String: Any]
        #expect(ok["ok"] as? Bool == true && ok["id"] as? Int == 3)
        let err = try JSONSerialization.jsonObject(with: Data(ControlLine.error(id: nil, .unknownOp("fly")))) as! [String: Any]
        #expect((err["error"] as? [String: Any])?["code"] as? String == "unknown-op")
        #expect(ControlLine.event("peerAppeared", ["name": "b"]).last == 0x0A)
    }
}

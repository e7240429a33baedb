import Foundation
import HandoffCore
import Testing
@testable import HandoffControl

/// Strings through both paths of the writer and of the reader: a plain run (printable ASCII,
/// nothing to escape) copied at once, anything else byte by byte or scalar by scalar.
struct JSONStringTests {
    @Test(arguments: [
        "", "plain text", "a \"quote\"", "back\\slash", "del \u{7F}", "ctl \u{01}", "é 🦅", "bidi \u{202E} x", "tab\tnl\n",
        "~!#$%&'()*+,-./:;<=>?@[]^_`{|}", "plain then é"
    ])
    func stringsRoundTripByEitherPath(_ s: String) throws {
        let text = JSONWriter.encode(["v": .string(s)])
        #expect(try JSONValue.parse(text) == ["v": .string(s)])
        #expect(try JSONValue.propertyList(from: JSONSerialization.jsonObject(with: Data(text))) == ["v": .string(s)])
    }

    @Test func aPlainStringIsWrittenAsItIs() {
        #expect(JSONWriter.encode(["v": "abc", "w": ""]) == Array(#"{"v":"abc","w":""}"#.utf8))
        #expect(JSONWriter.encode(["v": "a\"b"]) == Array(#"{"v":"a\"b"}"#.utf8))
    }

    @Test func theReaderRefusesInAPlainRunWhatItRefusesElsewhere() throws {
        let open = Array(#"{"v":"ab"#.utf8), close = Array(#"c"}"#.utf8)
        #expect(throws: JSONValue.Problem.self) { try JSONValue.parse(open + [0x01] + close) }
        #expect(throws: JSONValue.Problem.self) { try JSONValue.parse(open + [0xFF] + close) }
        #expect(throws: JSONValue.Problem.self) { try JSONValue.parse(open + [0xE2, 0x82] + close) }
        #expect(throws: JSONValue.Problem.self) { try JSONValue.parse(Array(#"{"v":"abc"#.utf8)) }
        #expect(try JSONValue.parse(open + [0xC3, 0xA9] + close) == ["v": "abéc"])
        #expect(try JSONValue.parse(Array(#"{"v":"ab\"c\u00e9","k\n":1}"#.utf8)) == ["v": "ab\"cé", "k\n": 1])
    }
}

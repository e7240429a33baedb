import Foundation
import HandoffCore
import Testing

/// HandoffCore imports only FoundationEssentials; what it wrote for itself in place of
/// Foundation's (ICU's) functions gives what they gave, checked here against Foundation.
@Suite struct EssentialsReplacementTests {
    @Test(arguments: [0.0, 0.004, 0.005, 0.5, 1.5, 2.5, 2.675, 99.995, 123.456, -0.004, -1.25, -0.0, 4_503_599_627.25, 3.0e-9, 1_048_576.0 / 3])
    func fixedPointMatchesStringFormat(_ x: Double) {
        for digits in 0...3 {
            #expect(x.fixedPoint(digits) == String(format: "%.\(digits)f", x) || Self.tie(x, digits), "\(x) to \(digits) digits")
        }
    }

    /// printf rounds the binary value exactly; we round the scaled double. They differ only for
    /// values whose scaled form lands on .5 after rounding, such as 2.675 (2.67499999...).
    static func tie(_ x: Double, _ digits: Int) -> Bool {
        let scaled = abs(x) * pow(10, Double(digits))
        return abs(scaled - scaled.rounded(.down) - 0.5) < 1e-6
    }

    @Test func fixedPointOfWhatIsNotANumber() {
        #expect(Double.infinity.fixedPoint(2) == "inf")
        #expect(Double.nan.fixedPoint(1) == "nan")
    }

    @Test(arguments: ["", "  ", " a ", "\ta b\t", "a", " \u{00A0}x\u{2003}", "\nkeeps newlines\n", "é "])
    func trimmingSpacesMatchesFoundation(_ text: String) {
        #expect(text.trimmingSpaces == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
    }

    @Test func fileErrorTextIsTheSystemsWords() {
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"))
            Issue.record("read a file that does not exist")
        } catch {
            #expect(error.fileErrorText == "No such file or directory")
        }
        #expect(POSIXError(.EACCES).fileErrorText == "Permission denied")
        // Bytes that are not UTF-8, read as text (a configuration file that is a binary).
        let binary = FileManager.default.temporaryDirectory.appendingPathComponent("not-text-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: binary) }
        try? Data([0x70, 0x3A, 0x20, 0xFF, 0xFE, 0x0A]).write(to: binary)
        do {
            _ = try String(contentsOf: binary, encoding: .utf8)
            Issue.record("read bytes that are not UTF-8 as text")
        } catch {
            #expect(error.fileErrorText == "it is not UTF-8 text", "\(error)")
        }
    }

    /// The same bytes are JSON for us as for JSONSerialization (which takes a trailing comma too).
    @Test(arguments: [
        #"{"a":[1,2.5,"x",null,true,{"b":{}}]}"#, "1", "\"s\"", "[]", "null", "1e400", "{", "[1,]", "{'a':1}", "", "nul", "{\"a\" 1}", "[1] 2"
    ])
    func typedPayloadJSONIsWhatJSONSerializationTakes(_ text: String) throws {
        var a = UserActivity(type: try ActivityType("org.example.view"), title: "t")
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
        let ours = (try? a.setTypedPayload(json: Data(text.utf8), typeName: "T")) != nil
        #expect(ours == json, "\(text): JSONSerialization says \(json)")
    }

    @Test func aCanonicalUUIDReadsAsFoundationReadsIt() {
        for _ in 0..<1000 {
            let u = UUID()
            #expect(UUID(canonical: u.uuidString) == u)
        }
        #expect(UUID(canonical: "00000000-0000-0000-0000-000000000000") == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(UUID(canonical: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")?.uuidString == "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")
    }

    @Test func aCanonicalStringIsFoundationsUUIDString() {
        for _ in 0..<1000 {
            let u = UUID()
            #expect(u.canonicalString == u.uuidString)
        }
        #expect(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).canonicalString == "00000000-0000-0000-0000-000000000000")
        #expect(
            UUID(uuid: (0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F)).canonicalString
                == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    }

    /// Version 4, the RFC 4122 variant, and not the same twice in 10,000.
    @Test func aRandomUUIDIsAVersionFourUUID() {
        var seen = Set<UUID>()
        for _ in 0..<10_000 {
            let u = UUID.random()
            #expect(u.uuid.6 >> 4 == 4 && u.uuid.8 >> 6 == 0b10, "\(u)")
            seen.insert(u)
        }
        #expect(seen.count == 10_000)
        // Every bit but the six fixed ones varies.
        let ors = seen.reduce(into: [UInt8](repeating: 0, count: 16)) { acc, u in
            withUnsafeBytes(of: u.uuid) { for i in 0..<16 { acc[i] |= $0[i] } }
        }
        let ands = seen.reduce(into: [UInt8](repeating: 0xFF, count: 16)) { acc, u in
            withUnsafeBytes(of: u.uuid) { for i in 0..<16 { acc[i] &= $0[i] } }
        }
        #expect(ors == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x4F, 0xFF, 0xBF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(ands == [0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test(arguments: [
        "", "0123456789ABCDEF0123456789ABCDEF0123", "E621E1F8-C36C-495A-93FC-0C247A3E6E5", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F0",
        "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "E621E1F8-C36C-495A-93FC-0C247A3E6E5f", "E621E1F8C-36C-495A-93FC-0C247A3E6E5F",
        "E621E1F8-C36C-495A-93FC_0C247A3E6E5F", "G621E1F8-C36C-495A-93FC-0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5\u{00C9}",
        "{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}"
    ])
    func anyOtherSpellingOfAUUIDIsRefused(_ text: String) {
        #expect(UUID(canonical: text) == nil, "\(text)")
    }

    /// The ASCII shortcut and the standard library's validation agree on every kind of input.
    @Test(
        arguments: [
            [], Array("plain ascii".utf8), Array("é ü 日本 🦅".utf8), [0x41, 0xFF], [0xE2, 0x82], [0xC0, 0xAF], [0xED, 0xA0, 0x80],
            [0xF0, 0x9F, 0xA6, 0x85, 0x41], [0x41, 0x00, 0x42], [0xF4, 0x90, 0x80, 0x80], [0x7F]
        ] as [[UInt8]])
    func validUTF8AgreesWithTheStandardLibrary(_ bytes: [UInt8]) {
        let expected = String(validating: bytes, as: UTF8.self)
        #expect(bytes.withUnsafeBufferPointer { String(validUTF8: $0) } == expected, "\(bytes)")
        #expect(String(validUTF8: ([0x20] + bytes + [0x20])[1..<bytes.count + 1]) == expected, "\(bytes) as a slice")
    }
}

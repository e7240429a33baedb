import Testing
@testable import HandoffDiscovery

@Suite struct TXTRecordTests {
    @Test func validRecord() throws {
        let r = try TXTRecord(["fp": "abc", "proto": "1"])
        #expect(r["FP"] == "abc")
        #expect(r.strings == [Array("fp=abc".utf8), Array("proto=1".utf8)])
        #expect(r.byteCount == 1 + 6 + 1 + 7)
    }

    @Test func keyRules() {
        #expect(throws: TXTError.emptyKey) { try TXTRecord(["": "x"]) }
        #expect(throws: TXTError.keyTooLong("tenletters")) { try TXTRecord(["tenletters": "x"]) }
        #expect(throws: TXTError.invalidKey("a=b")) { try TXTRecord([TXTRecord.Entry("a=b", "x")]) }
        #expect(throws: TXTError.invalidKey("ké")) { try TXTRecord(["ké": "x"]) }
        #expect(throws: TXTError.duplicateKey("FP")) { try TXTRecord(["fp": "1", "FP": "2"]) }
        _ = try? TXTRecord(["ninechars": "x"])
        #expect((try? TXTRecord(["ninechars": "x"])) != nil)
    }

    @Test func stringOver255BytesIsRefused() {
        let v = String(repeating: "x", count: 252)  // "k=" + 252 = 254, "kk=" + 252 = 255, "kkk=" + 252 = 256
        #expect((try? TXTRecord(["kk": v])) != nil)
        #expect(throws: TXTError.stringTooLong(key: "kkk", bytes: 256)) { try TXTRecord(["kkk": v]) }
    }

    @Test func recordOver400BytesIsRefused() {
        let v = String(repeating: "x", count: 190)
        // Two strings of length byte + "a=" + 190 = 193 bytes each: 386 fit; a third of 1 + 2 + 11
        // makes exactly 400, which fits; one byte more does not.
        #expect((try? TXTRecord(["a": v, "b": v])) != nil)
        #expect((try? TXTRecord(["a": v, "b": v, "c": String(repeating: "y", count: 11)])) != nil)
        #expect(throws: TXTError.recordTooLarge(bytes: 401, limit: 400)) {
            try TXTRecord(["a": v, "b": v, "c": String(repeating: "y", count: 12)])
        }
    }

    @Test func receivedRecordsAreParsedLeniently() {
        let r = TXTRecord(received: [Array("a=1".utf8), Array("=nokey".utf8), Array("flag".utf8), Array("A=2".utf8), [0xFF, 0x3D, 0x31]])
        #expect(r.entries.map(\.key) == ["a", "flag"])
        #expect(r["a"] == "1")
        #expect(r.contains(key: "flag") && r["flag"] == nil)
    }

    @Test func handoffKeysAreReserved() throws {
        #expect(throws: TXTError.reservedKey("V")) { try HandoffTXT.compose(try TXTRecord(["V": "9"])) }
        let full = try HandoffTXT.compose(try TXTRecord(["n": "x"]))
        #expect(full.entries.map(\.key) == ["v", "n"])
        #expect(HandoffTXT.foreignReason(full) == nil)
    }

    @Test func foreignRecordsAreNamed() throws {
        let cases: [([String], String)] = [
            ([], "no v"), (["txtvers=1", "seq=1"], "no v"), (["v=1"], "v=1 is not 2"), (["v"], "no v")
        ]
        for (strings, reason) in cases {
            let r = TXTRecord(received: strings.map { Array($0.utf8) })
            #expect(HandoffTXT.foreignReason(r)?.text == reason)
        }
    }

    @Test func instanceNames() throws {
        _ = try ServiceAdvert(instanceName: String(repeating: "n", count: 63), port: 1)
        _ = try ServiceAdvert(instanceName: "Küche – laptop", port: 1)
        for bad in ["", String(repeating: "n", count: 64), "tab\there", String(repeating: "é", count: 32)] {
            let e = #expect(throws: DiscoveryError.self) { try ServiceAdvert(instanceName: bad, port: 1) }
            guard case .invalidInstanceName? = e else {
                Issue.record("\(bad): \(String(describing: e))")
                continue
            }
        }
    }
}

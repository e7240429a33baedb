import Foundation
import Testing
@testable import HandoffCore

@Suite struct CodecLimitTests {
    let header: [UInt8] = [0x48, 0x4F, 0x01]

    @Test func depthLimit() throws {
        // The outermost container is depth 1: 16 arrays pass, 17 do not, on both sides.
        let ok = nested(16)
        #expect(try BoundedDecoder().decode(CanonicalEncoder().encode(ok)) == ok)
        #expect(throws: CodecError.depthExceeded(limit: 16)) { try CanonicalEncoder().encode(nested(17)) }
        // 17 one-element arrays around `false`, written by hand so the encoder's own check is not involved.
        let raw = Data(header + (0..<17).flatMap { _ in [UInt8(0x08), 0x01] } + [0x04])
        #expect(throws: CodecError.depthExceeded(limit: 16)) { try BoundedDecoder().decode(raw) }
    }

    @Test func depthLimitIsConfigurable() throws {
        let limits = CodecLimits(maxDepth: 3)
        #expect(throws: CodecError.depthExceeded(limit: 3)) {
            try BoundedDecoder(limits: limits).decode(CanonicalEncoder().encode(nested(4)))
        }
        _ = try BoundedDecoder(limits: limits).decode(CanonicalEncoder().encode(nested(3)))
    }

    @Test func valueCountLimit() throws {
        // An array of n scalars is n + 1 values.
        let ok = PropertyListValue.array(Array(repeating: true, count: 4_095))
        _ = try BoundedDecoder().decode(CanonicalEncoder().encode(ok))
        let over = PropertyListValue.array(Array(repeating: true, count: 4_096))
        #expect(throws: CodecError.tooManyValues(limit: 4_096)) { try CanonicalEncoder().encode(over) }
        let bytes = try CanonicalEncoder(limits: CodecLimits(maxValues: 10_000)).encode(over)
        #expect(throws: CodecError.tooManyValues(limit: 4_096)) { try BoundedDecoder().decode(bytes) }
        #expect(throws: CodecError.tooManyValues(limit: 10)) {
            try BoundedDecoder(limits: CodecLimits(maxValues: 10)).decode(bytes)
        }
    }

    @Test func sizeLimit() throws {
        let big = PropertyListValue.data(Data(count: 256 * 1024))
        #expect(throws: CodecError.self) { try CanonicalEncoder().encode(big) }
        let bytes = try CanonicalEncoder(limits: CodecLimits(maxBytes: .max)).encode(big)
        #expect(throws: CodecError.inputTooLarge(size: bytes.count, limit: 256 * 1024)) {
            try BoundedDecoder().decode(bytes)
        }
        let small = try CanonicalEncoder().encode(.data(Data(count: 100)))
        #expect(throws: CodecError.inputTooLarge(size: small.count, limit: 50)) {
            try BoundedDecoder(limits: CodecLimits(maxBytes: 50)).decode(small)
        }
    }

    @Test func lyingLengthsAreRefusedBeforeAllocating() {
        // A string, data, array and dictionary each claiming 2^62 elements in a 14-byte input.
        let huge: [UInt8] = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40]
        for tag: UInt8 in [0x01, 0x07, 0x08, 0x09] {
            #expect(throws: CodecError.truncated(offset: 4)) { try BoundedDecoder().decode(Data(header + [tag] + huge)) }
        }
    }

    @Test func invalidUTF8() {
        #expect(throws: CodecError.invalidUTF8(offset: 4)) {
            try BoundedDecoder().decode(Data(header + [0x01, 0x02, 0xC3, 0x28]))
        }
        #expect(throws: CodecError.invalidUTF8(offset: 5)) {
            try BoundedDecoder().decode(Data(header + [0x09, 0x01, 0x01, 0xFF, 0x04]))
        }
    }

    @Test func nonCanonicalForms() {
        // Keys out of order, repeated keys, a varint with a redundant byte, a varint past 64 bits.
        let cases: [[UInt8]] = [
            [0x09, 0x02, 0x01, 0x62, 0x04, 0x01, 0x61, 0x04],
            [0x09, 0x02, 0x01, 0x61, 0x04, 0x01, 0x61, 0x04],
            [0x02, 0x81, 0x00],
            [0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        ]
        for bytes in cases {
            let e = #expect(throws: CodecError.self) { try BoundedDecoder().decode(Data(header + bytes)) }
            guard case .nonCanonical? = e else {
                Issue.record("\(bytes): got \(String(describing: e))")
                continue
            }
        }
    }

    @Test func canonicallyEquivalentKeysDoNotOverwriteEachOther() {
        let composed = Array("\u{E9}".utf8), decomposed = Array("e\u{301}".utf8)
        let (first, second) = decomposed.lexicographicallyPrecedes(composed) ? (decomposed, composed) : (composed, decomposed)
        let bytes: [UInt8] = [0x09, 0x02] + [UInt8(first.count)] + first + [0x04] + [UInt8(second.count)] + second + [0x05]
        let e = #expect(throws: CodecError.self) { try BoundedDecoder().decode(Data(header + bytes)) }
        guard case .nonCanonical? = e else {
            Issue.record("got \(String(describing: e))")
            return
        }
    }

    @Test func framingErrors() {
        #expect(throws: CodecError.badMagic) { try BoundedDecoder().decode(Data()) }
        #expect(throws: CodecError.badMagic) { try BoundedDecoder().decode(Data("bplist00".utf8)) }
        #expect(throws: CodecError.unsupportedFormatVersion(2)) { try BoundedDecoder().decode(Data([0x48, 0x4F, 0x02, 0x04])) }
        #expect(throws: CodecError.truncated(offset: 3)) { try BoundedDecoder().decode(Data(header)) }
        #expect(throws: CodecError.unknownTag(0x42, offset: 3)) { try BoundedDecoder().decode(Data(header + [0x42])) }
        #expect(throws: CodecError.trailingBytes(count: 1)) { try BoundedDecoder().decode(Data(header + [0x04, 0x04])) }
        #expect(throws: CodecError.nonCanonical("date is not finite", offset: 3)) {
            try BoundedDecoder().decode(Data(header + [0x06, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]))
        }
    }

    @Test func everyTruncationIsACleanError() throws {
        var a = UserActivity(type: makeType(), title: "t")
        try a.setUserInfo(["k": ["x": [1, 2.5, .date(Date()), .data(Data([1, 2]))]]])
        let bytes = try a.encoded()
        for n in 0..<bytes.count {
            #expect(throws: CodecError.self) { try UserActivity(decoding: bytes.prefix(n)) }
        }
    }
}

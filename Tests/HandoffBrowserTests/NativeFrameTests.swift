import HandoffBrowser
import Testing

/// The native messaging framing: whole messages in order whatever the reads cut, and a message
/// longer than the bound skipped as it arrives (never held), the stream staying in step.
@Suite struct NativeFrameTests {
    static func frame(_ body: [UInt8]) -> [UInt8] { NativeFrame.encode(body)! }

    @Test func messagesComeOutWholeWhateverTheReadsCut() {
        let bytes = Self.frame(Array(#"{"type":"away"}"#.utf8)) + Self.frame([]) + Self.frame(Array("x".utf8))
        for cut in 1...bytes.count {
            var decoder = NativeFrameDecoder(maxMessage: 100)
            var items: [NativeFrameDecoder.Item] = []
            var i = 0
            while i < bytes.count {
                items += decoder.feed(bytes[i..<min(i + cut, bytes.count)])
                i += cut
            }
            #expect(items == [.message(Array(#"{"type":"away"}"#.utf8)), .message([]), .message(Array("x".utf8))], "reads of \(cut)")
            #expect(decoder.pending == 0)
        }
    }

    @Test func anOverlongMessageIsSkippedAsItArrivesAndTheNextOneReads() {
        var decoder = NativeFrameDecoder(maxMessage: 8)
        let long = [UInt8](repeating: 0x61, count: 100_000)
        var items = decoder.feed([0xa0, 0x86, 0x01, 0x00])  // 100,000, little-endian
        for chunk in stride(from: 0, to: long.count, by: 4096) {
            items += decoder.feed(long[chunk..<min(chunk + 4096, long.count)])
            #expect(decoder.pending <= 8 + 4)
        }
        items += decoder.feed(Self.frame(Array("ok".utf8)))
        #expect(items == [.tooLong(length: 100_000), .message(Array("ok".utf8))])
    }

    @Test func aLengthOfFourGigabytesHoldsNothing() {
        var decoder = NativeFrameDecoder(maxMessage: 1 << 16)
        let items = decoder.feed([0xff, 0xff, 0xff, 0xff] + [UInt8](repeating: 1, count: 10))
        #expect(items == [.tooLong(length: .max)])
        #expect(decoder.pending == 0)
    }

    @Test func nothingLongerThanTheBrowserTakesIsFramed() {
        #expect(NativeFrame.encode([UInt8](repeating: 0, count: NativeFrame.maxToBrowser + 1)) == nil)
        #expect(NativeFrame.encode([1, 2])! == [2, 0, 0, 0, 1, 2])
    }
}

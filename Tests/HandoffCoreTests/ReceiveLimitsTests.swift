import HandoffCore
import Testing

/// What `handoffctl receive` takes: a size a sender names is checked against the largest file, the
/// sending machine's quota and the free space kept, before and while the file is written.
@Suite struct ReceiveLimitsTests {
    static let gib: Int64 = 1 << 30

    @Test func aFileThatWouldFillTheDiskIsRefusedBeforeAByteIsWritten() {
        let limits = ReceiveLimits()
        // 1 TB announced onto a 48 MiB filesystem with 40 MiB free: refused, the reserve named.
        let why = limits.refusal(size: 1 << 40, fromPeer: 0, freeBytes: 40 << 20, totalBytes: 48 << 20)
        #expect(why?.contains("more than the 64.0 GiB") == true)
        let small = limits.refusal(size: 39 << 20, fromPeer: 0, freeBytes: 40 << 20, totalBytes: 48 << 20)
        #expect(small?.contains("keeps 4.8 MiB free") == true)
        #expect(limits.refusal(size: 30 << 20, fromPeer: 0, freeBytes: 40 << 20, totalBytes: 48 << 20) == nil)
    }

    @Test func oneMachineTakesNoMoreThanItsQuota() {
        let limits = ReceiveLimits(perPeerBytes: 10 << 20)
        #expect(limits.refusal(size: 6 << 20, fromPeer: 0, freeBytes: 100 * Self.gib, totalBytes: 200 * Self.gib) == nil)
        #expect(limits.refusal(size: 6 << 20, fromPeer: 6 << 20, freeBytes: 100 * Self.gib, totalBytes: 200 * Self.gib)?.contains("--quota") == true)
    }

    @Test func writingStopsWhenTheDiskFillsFromElsewhere() {
        let limits = ReceiveLimits(keepFreeBytes: 1 << 20)
        #expect(limits.stopWriting(remaining: 1 << 20, freeBytes: 4 << 20, totalBytes: Self.gib) == nil)
        #expect(limits.stopWriting(remaining: 4 << 20, freeBytes: 4 << 20, totalBytes: Self.gib) != nil)
    }

    @Test func sizesAreReadInPowersOf1024() {
        #expect(ReceiveLimits.parseSize("1536") == 1_536)
        #expect(ReceiveLimits.parseSize("64K") == 64 << 10)
        #expect(ReceiveLimits.parseSize("500m") == 500 << 20)
        #expect(ReceiveLimits.parseSize("2G") == 2 << 30)
        for bad in ["", "G", "-1G", "1.5G", "1X", "99999999999999T", "１G"] { #expect(ReceiveLimits.parseSize(bad) == nil, "\(bad)") }
    }

    @Test func aFileNameMayNotPassForAnOptionOrAHomeDirectory() {
        for bad in ["-rf", "--help", "~root", "~", ".hidden", "a/b", "..", "e\u{202E}txt.exe"] {
            #expect(FileTransfer.safeName(bad) == nil, "\(bad)")
        }
        for good in ["notes.txt", "a-b", "x~y", "Ünïcödé.pdf"] { #expect(FileTransfer.safeName(good) == good) }
    }
}

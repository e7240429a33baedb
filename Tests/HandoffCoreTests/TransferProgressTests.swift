import HandoffCore
import Testing

/// send-file's progress line: sizes and rate in the same units, the time left, a stall said as
/// such (it froze with a stale rate), and "saving" until the receiver has the file.
@Suite struct TransferProgressTests {
    static let mib: Int64 = 1 << 20

    @Test func rateAndTimeLeftInBinaryUnits() {
        let p = TransferProgress(label: "big.bin -> beta", total: 100 * Self.mib, done: 25 * Self.mib, elapsed: 5, idle: 0)
        #expect(p.line(waiting: "w", width: 4) == "big.bin -> beta [#   ] 25% 25.0 MiB of 100.0 MiB, 5.0 MiB/s, 15 s left")
    }

    @Test func aStallSaysWhatItWaitsFor() {
        let p = TransferProgress(label: "f", total: 10 * Self.mib, done: 5 * Self.mib, elapsed: 30, idle: 12.4)
        #expect(p.line(waiting: "waiting for the link to beta", width: 2) == "f [# ] 50% 5.0 MiB of 10.0 MiB, waiting for the link to beta (12 s)")
    }

    @Test func everyByteSentIsNotDoneUntilTheReceiverSaysSo() {
        let p = TransferProgress(label: "f", total: Self.mib, done: Self.mib, elapsed: 1, idle: 3)
        #expect(p.line(waiting: "w", phase: "waiting for beta to save it", width: 2) == "f [##] 100% 1.0 MiB of 1.0 MiB, waiting for beta to save it")
    }

    @Test func longTransfersSayMinutesAndHours() {
        let p = TransferProgress(label: "f", total: 1 << 40, done: 1 << 30, elapsed: 10, idle: 0)
        #expect(p.line(waiting: "w", width: 1).hasSuffix("2 h 50 min left"))
    }
}

import Foundation
import HandoffAdvert
import HandoffDiscovery
import HandoffCore

/// Figures for the private advert: TXT size before and after, and the CPU a paired
/// machine spends recognising a record with 1, 10 and 50 paired keys (the record's owner last,
/// and a stranger's record, which is checked against every key).
@main
struct AdvertBench {
    static func main() throws {
        let n = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 2000
        let tokens = (0..<4).map { AdvertTXT.Token(activityID: UUID(), type: "org.hawknotes.bookDetail", version: UInt64($0)) }
        let key = AdvertisingKey.random(generation: 1)
        let old = try legacyRecord(tokens: tokens, key: key)
        let new = try HandoffTXT.compose(try PrivateAdvert.record(.init(sequence: 1, tokens: tokens), key: key))
        let empty = try HandoffTXT.compose(try PrivateAdvert.record(.init(sequence: 1, tokens: []), key: key))
        print(
            "TXT bytes: \(old.byteCount) before with four activities (txtvers, seq, pv, fp, ag, n, t0-t3),"
                + " \(new.byteCount) private with four, \(empty.byteCount) with none")
        print("recognising one record".padding(toLength: 44, withPad: " ", startingAt: 0) + "    µs p50    µs p99")
        for count in [1, 10, 50] {
            let others = (1..<count).map { (PeerID("peer\($0)"), AdvertisingKey.random(generation: 1)) }
            for (label, keys) in [
                ("owner last", others + [(PeerID("owner"), key)]), ("a stranger's record", others + [(PeerID("x"), .random(generation: 1))])
            ] {
                // As Peers would: the recogniser is made once per set of paired keys.
                let recogniser = PrivateAdvert.Recogniser(keys: keys)
                var times: [Double] = []
                for _ in 0..<n {
                    let start = ContinuousClock.now
                    let found = recogniser.recognise(new)
                    let took = ContinuousClock.now - start
                    precondition((found != nil) == (label == "owner last"))
                    times.append(Double(took.components.attoseconds) / 1e12 + Double(took.components.seconds) * 1e6)
                }
                times.sort()
                let row = "\(count) paired keys, \(label)".padding(toLength: 44, withPad: " ", startingAt: 0)
                print(row + String(format: "%10.1f%10.1f", times[times.count / 2], times[times.count * 99 / 100]))
            }
        }
    }

    /// The record as the first adverts published it (txtvers and seq from the discovery layer, then pv, fp,
    /// ag, n and one sealed token per activity), rebuilt here only to measure its size.
    static func legacyRecord(tokens: [AdvertTXT.Token], key: AdvertisingKey) throws -> TXTRecord {
        let salt = AdvertisingKey.randomSalt()
        var entries: [TXTRecord.Entry] = [
            .init("txtvers", "1"), .init("seq", String(UInt64(Date().timeIntervalSince1970 * 1000))), .init("pv", "1"),
            .init("fp", "abcd-ef01-2345-6789"), .init("ag", String(key.generation)), .init("n", AdvertTXT.base64url(salt))
        ]
        for (i, t) in tokens.enumerated() {
            entries.append(.init("t\(i)", AdvertTXT.base64url(key.seal(t.bytes, salt: salt, index: UInt32(i)))))
        }
        return try TXTRecord(entries)
    }
}

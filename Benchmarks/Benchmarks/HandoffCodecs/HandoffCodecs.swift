import Benchmark
import Foundation
import HandoffAdvert
import HandoffControl
import HandoffCore
import HandoffDiscovery
import HandoffProtocol

/// The decoders every paired machine, stranger and local client reaches, one input each: what a
/// message costs in allocations is the bound an attacker meets per frame (docs/SECURITY.md). The
/// allocation counts are checked against Thresholds/ (`swift package benchmark thresholds check`);
/// times are printed, not checked (they move with the machine).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        thresholds: [.mallocCountTotal: .init(relative: [.p90: 5.0], absolute: [.p90: 2])])

    let activity = UserActivity.sample
    let message = try! PeerMessage.activity(id: 7, activity: activity).encoded()
    Benchmark("PeerMessage.decodeActivity") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PeerMessage(decoding: message)) }
    }

    let frame = StreamFrame.data(stream: 3, offset: 1 << 20, bytes: [UInt8](repeating: 0x5a, count: 1)).bytes
    Benchmark("StreamFrame.decodeOneByteData") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try StreamFrame(decoding: frame)) }
    }

    let line = Array(#"{"id":1,"op":"publish","activity":{"type":"org.example.page","title":"Notes","userInfo":{"page":"4"}}}"#.utf8)
    Benchmark("ControlRequest.readPublish") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try ControlRequest(line: line)) }
    }

    let key = AdvertisingKey.random(generation: 1)
    let tokens = (0..<4).map { AdvertTXT.Token(activityID: UUID(), type: "org.example.page", version: UInt64($0)) }
    let record = try! HandoffTXT.compose(try PrivateAdvert.record(.init(sequence: 1, tokens: tokens), key: key))
    let recogniser = PrivateAdvert.Recogniser(
        keys: (1..<10).map { (PeerID("peer\($0)"), AdvertisingKey.random(generation: 1)) } + [(PeerID("owner"), key)])
    Benchmark("PrivateAdvert.recogniseAmongTenKeys") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(recogniser.recognise(record)) }
    }
}

extension UserActivity {
    static var sample: UserActivity {
        var activity = UserActivity(type: try! ActivityType("org.example.page"), title: "Chapter 4")
        try! activity.setUserInfo(["page": .string("4"), "offset": .integer(1024)])
        try! activity.setWebpageURL(URL(string: "https://example.org/book/4"))
        return activity
    }
}

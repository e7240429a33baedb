// swift-tools-version: 6.1
// handoffd's benchmarks, a package of their own so that `swift build` and `swift test` of the
// product never build them (as swift-nio keeps its Benchmarks/):
//   Benchmarks/HandoffCodecs   ordo-one's package-benchmark: the decoders every peer and client
//                              reaches, with allocation counts checked against Thresholds/
//                              (`swift package benchmark thresholds check`);
//   Sources/handoff-*-bench    the tools the rigs in scripts/ run between test hosts (latency,
//                              throughput, memory), built by scripts/dev/build-release.sh.
// `Benchmarks/run --help` lists every benchmark and what it prints (docs/BENCHMARKS.md).
import PackageDescription

let package = Package(
    name: "HandoffBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "handoffd", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2")
    ],
    targets: [
        .executableTarget(
            name: "HandoffCodecs",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HandoffCore", package: "handoffd"), .product(name: "HandoffProtocol", package: "handoffd"),
                .product(name: "HandoffControl", package: "handoffd"), .product(name: "HandoffAdvert", package: "handoffd"),
                .product(name: "HandoffDiscovery", package: "handoffd")
            ],
            path: "Benchmarks/HandoffCodecs",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        // Continuation latency and daemon memory between two handoffd processes.
        .executableTarget(
            name: "handoff-continue-bench",
            dependencies: [
                .product(name: "HandoffClient", package: "handoffd"), .product(name: "HandoffCore", package: "handoffd"),
                .product(name: "NIOPosix", package: "swift-nio")
            ]),
        // Continuation stream figures: throughput, open latency, echo round trip, RSS, plain TCP.
        .executableTarget(
            name: "handoff-stream-bench",
            dependencies: [
                .product(name: "HandoffClient", package: "handoffd"), .product(name: "HandoffControl", package: "handoffd"),
                .product(name: "HandoffCore", package: "handoffd")
            ]),
        // Private advert figures: TXT size, recognition cost with many paired keys.
        .executableTarget(
            name: "handoff-advert-bench",
            dependencies: [
                .product(name: "HandoffAdvert", package: "handoffd"), .product(name: "HandoffDiscovery", package: "handoffd"),
                .product(name: "HandoffCore", package: "handoffd")
            ]),
        // Link latency figures: handshake, session round trip, plain TCP beside them.
        .executableTarget(
            name: "handoff-link-bench",
            dependencies: [
                .product(name: "HandoffLink", package: "handoffd"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log")
            ])
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.0
// libFuzzer targets for the decoders that read what peers, strangers and local clients send.
// Built with `scripts/dev/fuzz.sh` (swift build -Xswiftc -sanitize=fuzzer); each main hands its
// function to libFuzzer's driver (FuzzSupport):
// each target checks round trips and invariants, not only the absence of crashes.
import PackageDescription

let package = Package(
    name: "HandoffFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "handoffd", path: "..")],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver"]),
        .executableTarget(name: "fuzz-activity", dependencies: ["FuzzSupport", .product(name: "HandoffCore", package: "handoffd")]),
        .executableTarget(
            name: "fuzz-peer-message",
            dependencies: [
                "FuzzSupport",
                .product(name: "HandoffCore", package: "handoffd"), .product(name: "HandoffProtocol", package: "handoffd")
            ]),
        .executableTarget(
            name: "fuzz-control-line",
            dependencies: [
                "FuzzSupport",
                .product(name: "HandoffCore", package: "handoffd"), .product(name: "HandoffControl", package: "handoffd")
            ]),
        .executableTarget(
            name: "fuzz-txt",
            dependencies: [
                "FuzzSupport",
                .product(name: "HandoffDiscovery", package: "handoffd"), .product(name: "HandoffAdvert", package: "handoffd")
            ]),
        .executableTarget(name: "fuzz-config", dependencies: ["FuzzSupport", .product(name: "HandoffConfig", package: "handoffd")])
    ]
)

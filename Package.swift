// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "handoffd",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "HandoffCore", targets: ["HandoffCore"]),
        .library(name: "HandoffContent", targets: ["HandoffContent"]),
        .library(name: "HandoffConfig", targets: ["HandoffConfig"]),
        .library(name: "HandoffDiscovery", targets: ["HandoffDiscovery"]),
        .library(name: "HandoffAvahi", targets: ["HandoffAvahi"]),
        .executable(name: "handoff-discovery-probe", targets: ["handoff-discovery-probe"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // Activities, property-list values, the bounded codec and declared types. Foundation only.
        .target(name: "HandoffCore"),
        // The Hawk Notes library, content paths, handlers, routes and the scene model.
        .target(name: "HandoffContent", dependencies: ["HandoffCore"]),
        // The daemon's YAML configuration file.
        .target(name: "HandoffConfig", dependencies: [
            "HandoffCore", "HandoffContent", "HandoffDiscovery",
            .product(name: "Yams", package: "Yams"),
        ]),
        // libavahi-client, seen only by HandoffAvahi.
        .systemLibrary(name: "CAvahi", pkgConfig: "avahi-client", providers: [.apt(["libavahi-client-dev"])]),
        // Advertiser/browser protocols, TXT rules, the desired-state machine and peer table, a fake.
        .target(name: "HandoffDiscovery", dependencies: [
            "HandoffCore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The only importer of CAvahi: Discovery's protocols over a real avahi-daemon.
        .target(name: "HandoffAvahi", dependencies: [
            "CAvahi", "HandoffDiscovery",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Publishes and browses through HandoffAvahi, driven by stdin, events as JSON lines on stdout:
        // the tool the discovery end-to-end tests and benchmark run inside test hosts.
        .executableTarget(name: "handoff-discovery-probe", dependencies: [
            "HandoffAvahi", "HandoffDiscovery",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Test hosts (network namespaces, avahi-daemon) and child processes for tests.
        .target(name: "HandoffTestSupport", path: "Tests/HandoffTestSupport"),
        .testTarget(name: "HandoffCoreTests", dependencies: ["HandoffCore"]),
        .testTarget(name: "HandoffContentTests", dependencies: ["HandoffContent"]),
        .testTarget(name: "HandoffConfigTests", dependencies: ["HandoffConfig"]),
        .testTarget(name: "HandoffDiscoveryTests", dependencies: ["HandoffDiscovery"]),
        .testTarget(name: "HandoffAvahiTests", dependencies: ["HandoffAvahi", "HandoffDiscovery", "HandoffTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

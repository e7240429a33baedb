// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "handoffd",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "HandoffCore", targets: ["HandoffCore"]),
        .library(name: "HandoffContent", targets: ["HandoffContent"]),
        .library(name: "HandoffConfig", targets: ["HandoffConfig"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    ],
    targets: [
        // Activities, property-list values, the bounded codec and declared types. Foundation only.
        .target(name: "HandoffCore"),
        // The Hawk Notes library, content paths, handlers, routes and the scene model.
        .target(name: "HandoffContent", dependencies: ["HandoffCore"]),
        // The daemon's YAML configuration file.
        .target(name: "HandoffConfig", dependencies: [
            "HandoffCore", "HandoffContent",
            .product(name: "Yams", package: "Yams"),
        ]),
        .testTarget(name: "HandoffCoreTests", dependencies: ["HandoffCore"]),
        .testTarget(name: "HandoffContentTests", dependencies: ["HandoffContent"]),
        .testTarget(name: "HandoffConfigTests", dependencies: ["HandoffConfig"]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.0
import PackageDescription

// handoffctl's own modules, released with the metadata of the generic types they use with
// concrete arguments written by the compiler: made at run time instead, on first use, each is
// demangled and its requirements checked by a search through all of the binary's conformance
// records, and in a process that lives for one command every use is a first one
// (docs/PERFORMANCE.md, "handoffctl's start"). Not for handoffd: its restart and its push
// did not move with it (docs/PERFORMANCE.md), and it starts once.
let prespecialized: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-prespecialize-generic-metadata"], .when(configuration: .release))]

let package = Package(
    name: "handoffd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HandoffCore", targets: ["HandoffCore"]),
        .library(name: "HandoffContent", targets: ["HandoffContent"]),
        .library(name: "HawkNotes", targets: ["HawkNotes"]),
        .library(name: "HawkNotesApp", targets: ["HawkNotesApp"]),
        .library(name: "HandoffConfig", targets: ["HandoffConfig"]),
        .library(name: "HandoffDiscovery", targets: ["HandoffDiscovery"]),
        .library(name: "HandoffAvahi", targets: ["HandoffAvahi"]),
        .library(name: "HandoffProtocol", targets: ["HandoffProtocol"]),
        .library(name: "HandoffAdvert", targets: ["HandoffAdvert"]),
        .library(name: "HandoffLink", targets: ["HandoffLink"]),
        .library(name: "HandoffState", targets: ["HandoffState"]),
        .library(name: "HandoffDaemon", targets: ["HandoffDaemon"]),
        .library(name: "HandoffControl", targets: ["HandoffControl"]),
        .library(name: "HandoffClient", targets: ["HandoffClient"]),
        .executable(name: "handoffd", targets: ["handoffd"]),
        .executable(name: "handoffctl", targets: ["handoffctl"]),
        .executable(name: "hawknotes", targets: ["hawknotes"]),
        .executable(name: "handoff-discovery-probe", targets: ["handoff-discovery-probe"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.5.2"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0")
    ],
    targets: [
        // Activities, property-list values, the bounded codec and declared types. Foundation only.
        .target(name: "HandoffCore"),
        // Any app's content as the daemon sees it: handlers, routes, content paths, and the scene
        // model (a tab and a navigation stack of items, storage, restoration), over a ContentCatalog.
        .target(name: "HandoffContent", dependencies: ["HandoffCore"]),
        // The sample app, Hawk Notes: its library (books and their characters, a ContentCatalog),
        // its activity types and its built-in handlers.
        .target(name: "HawkNotes", dependencies: ["HandoffCore", "HandoffContent", "HandoffControl"]),
        // The Hawk Notes app's window as a value: state, the reducer (input -> state + effects), the
        // scene-storage encoding, the screen as styled lines. Pure: no terminal, no socket.
        .target(name: "HawkNotesApp", dependencies: ["HawkNotes", "HandoffContent", "HandoffCore"]),
        // ncurses (ncursesw), seen only by HawkNotesTerminal. Not through pkg-config: the module map
        // names the library, the headers are in /usr/include.
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
        // libxcb and its XFixes extension: the X11 clipboard, for the clipboard agent alone.
        .systemLibrary(name: "CXCB", providers: [.apt(["libxcb1-dev", "libxcb-xfixes0-dev"])]),
        // The only importer of CXCB: an X display's clipboard read and owned.
        .target(name: "HandoffX11", dependencies: ["CXCB", "HandoffClipboard", "HandoffCore", "HandoffAsync"]),
        // libwayland-client and the data-control protocols' code (scripts/dev/wayland-protocols.sh
        // makes it from protocols/): a Wayland session's clipboard, for the clipboard agent alone.
        .target(name: "CWaylandClipboard", exclude: ["protocols"], linkerSettings: [.linkedLibrary("wayland-client")]),
        // The only importer of CWaylandClipboard.
        .target(name: "HandoffWayland", dependencies: ["CWaylandClipboard", "HandoffClipboard", "HandoffCore", "HandoffAsync"]),
        // The session agent of the shared clipboard: a client of handoffd like any app.
        .executableTarget(
            name: "handoff-clipboard-agent",
            dependencies: [
                "HandoffX11", "HandoffWayland", "HandoffClipboard", "HandoffClient", "HandoffControl", "HandoffCore", "HandoffAsync",
                "CHandoffShims"
            ]),
        // The only importer of CNcurses: keys in, a Screen painted.
        .target(name: "HawkNotesTerminal", dependencies: ["CNcurses", "HawkNotesApp", "HandoffCore"]),
        // libyaml, seen only by HandoffConfig. Not through pkg-config: the header is in
        // /usr/include and the module map names the library.
        .systemLibrary(name: "CYAML", providers: [.apt(["libyaml-dev"])]),
        // The daemon's YAML configuration file (libyaml's events composed into a tree, decoded).
        .target(
            name: "HandoffConfig",
            dependencies: [
                "HandoffCore", "HandoffContent", "HandoffDiscovery", "CYAML"
            ]),
        // Avahi, seen only by HandoffAvahi: libavahi-common linked, libavahi-client's functions
        // forwarded to libavahi-client.so.3, loaded by the poll thread when it makes the client
        // (handoff_avahi_client_load). Not through pkg-config: avahi-client.pc adds -D_REENTRANT
        // (meaningless with glibc), a flag SwiftPM refuses with a warning at every build; the
        // headers (libavahi-client-dev) are in /usr/include.
        .target(name: "CAvahi", dependencies: ["CLibraryLoader"], linkerSettings: [.linkedLibrary("avahi-common")]),
        // Advertiser/browser protocols, TXT rules, the desired-state machine and peer table, a fake.
        .target(
            name: "HandoffDiscovery",
            dependencies: [
                "HandoffCore",
                .product(name: "Logging", package: "swift-log")
            ]),
        // The only importer of CAvahi: Discovery's protocols over a real avahi-daemon.
        .target(
            name: "HandoffAvahi",
            dependencies: [
                "CAvahi", "HandoffCore", "HandoffDiscovery",
                .product(name: "Logging", package: "swift-log")
            ]),
        // libldns (NLnet Labs), seen only by HandoffWideArea: DNS queries and TSIG-signed updates.
        // Its functions forward to libldns.so.3, loaded only when wide_area is configured
        // (handoff_ldns_load); the headers come from libldns-dev, the library from libldns3.
        .target(name: "CLDNS", dependencies: ["CLibraryLoader"]),
        // dlopen on first use, and the forwarders' macros, for CAvahi, CLDNS and CSystemdBus.
        .target(name: "CLibraryLoader"),
        // The only importer of CLDNS: unicast DNS-SD (RFC 6763 over RFC 2136 updates) as a Discovery.
        .target(
            name: "HandoffWideArea",
            dependencies: [
                "CLDNS", "HandoffCore", "HandoffDiscovery",
                .product(name: "Logging", package: "swift-log")
            ]),
        // Publishes and browses through HandoffAvahi, driven by stdin, events as JSON lines on stdout:
        // the tool the discovery end-to-end tests and benchmark run inside test hosts.
        .executableTarget(
            name: "handoff-discovery-probe",
            dependencies: [
                "HandoffAvahi", "HandoffDiscovery",
                .product(name: "Logging", package: "swift-log")
            ]),
        // The peer protocol's messages (docs/PROTOCOL.md): values, their canonical codec, the
        // hello's limits and what a hello declares. Pure: no NIO, no actors, no daemon.
        .target(name: "HandoffProtocol", dependencies: ["HandoffCore"]),
        // The private advert (docs/SECURITY.md): the advertising key, recognition tag, sealed tokens,
        // rotation and which listed addresses to dial. Pure: no NIO, no actors, no daemon.
        .target(
            name: "HandoffAdvert",
            dependencies: [
                "HandoffCore", "HandoffDiscovery",
                .product(name: "Crypto", package: "swift-crypto")
            ]),
        // Identity keys, pairing, Noise sessions, framing, connection limits.
        .target(
            name: "HandoffLink",
            dependencies: [
                "HandoffCore", "HandoffAdvert",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log")
            ]),
        // Waiting for an event or an answer with a deadline (Waiters), and bounding an operation
        // (Timeout): the one mechanism the daemon and HandoffClient share. EventLoopJobs: a
        // process's tasks on its event loop (handoffd, handoff-push-relay).
        .target(
            name: "HandoffAsync",
            dependencies: [
                "CHandoffShims", "CExecutorHook",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ]),
        // SQLite (libsqlite3), seen only by HandoffState. Not through pkg-config: the header is in
        // /usr/include and the module map names the library.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // Persistence in SQLite through its C API: the trust store, the scenes, the search index.
        .target(
            name: "HandoffState",
            dependencies: [
                "HandoffCore", "HandoffLink", "HandoffAdvert", "HandoffContent",
                "CSQLite",
                .product(name: "Logging", package: "swift-log")
            ]),
        // The control socket's wire format, shared by the daemon and HandoffClient.
        .target(name: "HandoffControl", dependencies: ["HandoffCore"]),
        // handoffd's D-Bus API as values: D-Bus values and their mapping to the control operations'
        // values, the interfaces (ours, GNOME Shell's search provider, KRunner's runner) and their
        // introspection XML. Pure: no bus, no daemon.
        .target(name: "HandoffBusAPI", dependencies: ["HandoffCore", "HandoffControl"]),
        // libsystemd's sd-bus and sd-event, seen only by HandoffBus, loaded when a bus is joined
        // (include/csystemdbus.h): the headers of libsystemd-dev, no link to libsystemd.
        .target(name: "CSystemdBus", dependencies: ["CLibraryLoader"]),
        // The only importer of CSystemdBus: a bus connection on a thread of its own, objects
        // served, signals, calls to other services.
        .target(
            name: "HandoffBus",
            dependencies: [
                "CSystemdBus", "HandoffBusAPI", "HandoffAsync",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ]),
        // The control-socket client for handoffctl and apps; never imports HandoffDaemon. A library
        // other packages depend on by version: no unsafe flags on it or on what it needs.
        .target(
            name: "HandoffClient",
            dependencies: [
                "HandoffControl", "HandoffCore", "HandoffAsync", "CHandoffShims",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ]),
        // The few libc calls Swift's Glibc module hides (pipe2 needs _GNU_SOURCE).
        .target(name: "CHandoffShims"),
        // The daemon's components (Activities, Peers, Pairing, Continuations, SceneBook), each a
        // Service owning its state, the peer protocol, and the control operations over them.
        .target(
            name: "HandoffDaemon",
            dependencies: [
                "HandoffCore", "HandoffContent", "HandoffDiscovery", "HandoffProtocol", "HandoffAdvert", "HandoffLink",
                "HandoffControl", "HandoffConfig", "CHandoffShims", "HandoffBus", "HandoffBusAPI", "HandoffClipboard",
                "HandoffAsync", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log")
            ]),
        // Sets Swift Concurrency's global enqueue hook (HandoffAsync's EventLoopJobs: tasks on the event loop).
        .target(name: "CExecutorHook"),
        // The daemon: configuration, stores, Avahi, link and control socket as one service group.
        // symbol-order.txt: the functions handoffd runs, for the release link (scripts/dev/build-release.sh).
        .executableTarget(
            name: "handoffd",
            dependencies: [
                "HandoffDaemon", "HandoffAvahi", "HandoffWideArea", "HandoffDiscovery", "HandoffCore", "HandoffState", "HandoffConfig",
                "HandoffContent", "HandoffLink", "HandoffBus", "CHandoffShims",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"), "HandoffAsync"
            ], exclude: ["symbol-order.txt"]),
        // handoffctl's command line: declarations with ArgumentParser's names, read by reflecting
        // the one command that runs (docs/PERFORMANCE.md, "handoffctl's start"). Pure: no I/O.
        .target(name: "HandoffCommandLine", swiftSettings: prespecialized),
        // The command line: one file per subcommand, all through HandoffClient.
        .executableTarget(
            name: "handoffctl",
            dependencies: [
                "HandoffClient", "HandoffControl", "HandoffCore", "HandoffContent", "CHandoffShims", "HandoffAsync",
                "HandoffCommandLine", .product(name: "NIOCore", package: "swift-nio")
            ],
            // Released fully static: no dynamic loader, no libc/libm/libgcc_s to map and bind, so
            // every command starts 0.75 ms sooner (docs/PERFORMANCE.md, "handoffctl's start"). It looks up
            // no users, groups or hosts (NSS would need glibc's own version at run time).
            swiftSettings: prespecialized,
            linkerSettings: [.unsafeFlags(["-static-executable"], .when(configuration: .release))]),
        // The Hawk Notes app for the terminal: the window's state through HawkNotesApp, drawn by
        // HawkNotesTerminal, kept and continued through HandoffClient only.
        .executableTarget(
            name: "hawknotes",
            dependencies: [
                "HawkNotesApp", "HawkNotesTerminal", "HawkNotes", "HandoffClient", "HandoffControl", "HandoffContent", "HandoffCore",
                "HandoffAsync", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]),
        // The floor of a push on SwiftNIO (docs/PERFORMANCE.md): Benchmarks/scripts/push-relay.c's relays
        // on NIO, each read through a task and an actor as handoffd moves a message.
        .executableTarget(
            name: "handoff-push-relay",
            dependencies: [
                "HandoffAsync",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ]),
        // The browser extension's side of handoffd, pure: native messaging frames, the messages,
        // which pages may leave the browser or open in it (docs/BROWSER.md).
        .target(name: "HandoffBrowser", dependencies: ["HandoffCore", "HandoffControl"]),
        // The shared clipboard as values: what a copy may share, the offers heard, who owns the
        // clipboard (docs/CLIPBOARD.md).
        .target(
            name: "HandoffClipboard",
            dependencies: ["HandoffCore", "HandoffProtocol", .product(name: "Crypto", package: "swift-crypto")]),
        // The native messaging host the browser starts for the extension: a client of handoffd.
        .executableTarget(
            name: "handoff-browser-host",
            dependencies: [
                "HandoffAsync", "HandoffBrowser", "HandoffClient", "HandoffControl", "HandoffCore",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ]),
        // A peer that misbehaves on purpose (hostile pairing names), for the end-to-end tests.
        .executableTarget(
            name: "handoff-rogue-peer",
            dependencies: [
                "HandoffLink",
                .product(name: "Logging", package: "swift-log")
            ]),
        // Test hosts (network namespaces, avahi-daemon) and child processes for tests.
        .target(name: "HandoffTestSupport", path: "Tests/HandoffTestSupport"),
        // Fixtures: hostile property lists, read by the tests from their paths.
        .testTarget(name: "HandoffCoreTests", dependencies: ["HandoffCore", "HandoffTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "HandoffCommandLineTests", dependencies: ["HandoffCommandLine"]),
        .testTarget(name: "HandoffContentTests", dependencies: ["HandoffContent", "HandoffCore"]),
        // The sample library (config/library.json, read from its path) and Hawk Notes' routing.
        .testTarget(name: "HawkNotesTests", dependencies: ["HawkNotes", "HandoffContent", "HandoffCore"]),
        .testTarget(name: "HawkNotesTerminalTests", dependencies: ["HawkNotesTerminal"]),
        // Databases written by handoffd 0.2 (GRDB): read by the tests from their paths.
        .testTarget(
            name: "HandoffStateTests",
            dependencies: ["HandoffState", "HandoffLink", "HandoffAdvert", "HandoffContent", "HandoffCore", "HandoffTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "HandoffAsyncTests",
            dependencies: ["HandoffAsync", "HandoffTestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        .testTarget(name: "HandoffBusTests", dependencies: ["HandoffBus"]),
        .testTarget(name: "HandoffBrowserTests", dependencies: ["HandoffBrowser", "HandoffControl", "HandoffCore"]),
        .testTarget(name: "HandoffClipboardTests", dependencies: ["HandoffClipboard", "HandoffCore", "HandoffProtocol"]),
        .testTarget(name: "HandoffX11Tests", dependencies: ["HandoffX11", "HandoffClipboard", "HandoffAsync", "HandoffTestSupport"]),
        .testTarget(name: "HandoffWaylandTests", dependencies: ["HandoffWayland", "HandoffClipboard", "HandoffAsync", "HandoffTestSupport"]),
        // The client against the daemon's own control server, over real sockets.
        .testTarget(
            name: "HandoffClientTests",
            dependencies: [
                "HandoffClient", "HandoffControl", "HandoffCore", "HandoffDaemon", "HandoffTestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ]),
        .testTarget(name: "HawkNotesAppTests", dependencies: ["HawkNotesApp", "HawkNotes", "HandoffContent", "HandoffCore"]),
        .testTarget(name: "HandoffConfigTests", dependencies: ["HandoffConfig"]),
        .testTarget(name: "HandoffDiscoveryTests", dependencies: ["HandoffDiscovery"]),
        .testTarget(name: "HandoffProtocolTests", dependencies: ["HandoffProtocol", "HandoffCore"]),
        .testTarget(name: "HandoffAdvertTests", dependencies: ["HandoffAdvert", "HandoffDiscovery", "HandoffCore", "HandoffTestSupport"]),
        .testTarget(name: "HandoffWideAreaTests", dependencies: ["HandoffWideArea", "HandoffDiscovery", "HandoffTestSupport"]),
        .testTarget(
            name: "HandoffLinkTests",
            dependencies: [
                "HandoffLink", "HandoffState", "HandoffTestSupport",
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ],
            // The Noise test vectors: read by the tests from their paths.
            exclude: ["Fixtures"]),
        .testTarget(
            name: "HandoffDaemonTests",
            dependencies: [
                "HandoffDaemon", "HandoffControl", "HandoffClient", "HandoffContent", "HawkNotes", "HandoffState", "HandoffTestSupport",
                "HandoffBrowser", "HandoffClipboard",
                "HandoffConfig", "HandoffDiscovery", "HandoffProtocol", "HandoffAdvert", "HandoffLink", "HandoffAsync", "HandoffBus",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ]),
        .testTarget(name: "HandoffControlTests", dependencies: ["HandoffControl", "HandoffTestSupport"]),
        .testTarget(name: "HandoffBusAPITests", dependencies: ["HandoffBusAPI", "HandoffControl", "HandoffCore"]),
        .testTarget(
            name: "HandoffDaemonEndToEndTests",
            dependencies: [
                "HandoffAdvert", "HandoffClient", "HandoffControl", "HandoffCore", "HandoffContent", "HawkNotes", "HandoffTestSupport",
                .product(name: "Crypto", package: "swift-crypto")
            ]),
        .testTarget(name: "HandoffAvahiTests", dependencies: ["HandoffAvahi", "HandoffDiscovery", "HandoffTestSupport"])
    ],
    swiftLanguageModes: [.v6]
)

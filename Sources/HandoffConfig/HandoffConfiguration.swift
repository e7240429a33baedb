#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore
import HandoffDiscovery

/// handoffd's settings after loading and checking the configuration file.
public struct HandoffConfiguration: Sendable {
    /// The name this machine advertises and peers show; the host name unless configured.
    public var deviceName: String
    /// TCP port of the secure peer link.
    public var peerPort: Int
    /// Addresses dialled for paired peers that mDNS cannot list (another subnet, a VPN). A
    /// machine found there is a peer only if its key is pinned; the address is never trusted.
    public var staticPeers: [PeerEndpoint]
    /// Paired machines (names or fingerprints; `*` for all) whose pushes are refused: a push opens
    /// pages and runs handlers here without asking, so the person chooses whom to take them from.
    public var refusePushesFrom: [String] = []
    /// How often the private advert takes a new random name and new material (it also does at
    /// every unpair and address change).
    public var advertRotationSeconds: Int
    /// The mean time between rewrites of the private advert's TXT, which come at random moments
    /// whether or not the activities changed (docs/PRIVACY.md, "When the advert changes").
    public var advertRewriteSeconds: Double = 30
    /// Unicast DNS-SD in a zone of a DNS server (docs/DEPLOYMENT.md); nil: the link's mDNS only.
    public var wideArea: WideAreaConfiguration?
    /// Settings read and not applied, each with why and what to do instead (logged at start).
    public var notices: [String]
    public var stateDirectory: String
    public var runtimeDirectory: String
    /// One of trace, debug, info, notice, warning, error, critical.
    public var logLevel: String
    public var link: LinkLimits
    public var control: ControlLimits
    /// Exec handlers (dispatch step 3), each bound to declared types.
    public var execHandlers: [ExecHandlerBinding]
    /// The commands that open what handoffd cannot show itself: a webpage, a window.
    public var openers: Openers
    public var sizePolicy: ActivitySizePolicy
    public var codecLimits: CodecLimits
    /// The activity types declared without apps: the built-in ones and the file's own
    /// (`activity_types`). The daemon adds what installed apps declare (InstalledApps).
    public var activityTypes: DeclaredActivityTypes
    /// The file's own declarations (`activity_types`), added after the apps' at every reload.
    public var localActivityTypes: [ActivityTypeDeclaration] = []
    /// Where apps' declaration files are read from (`app_directories`; the XDG data directories'
    /// `handoffd/apps` when absent).
    public var appDirectories = InstalledApps.defaultDirectories(environment: ProcessInfo.processInfo.environment)
    /// The D-Bus API, notifications and search (docs/DBUS.md).
    public var desktop = DesktopSettings()
    public var streams = StreamSettings()
    public var clipboard = ClipboardConfiguration()

    /// Built-in defaults: what handoffd runs with when there is no configuration file.
    public init() {
        deviceName = Self.defaultDeviceName
        peerPort = 7340
        staticPeers = []
        advertRotationSeconds = 15 * 60
        wideArea = nil
        notices = []
        stateDirectory = "/var/lib/handoffd"
        runtimeDirectory = "/run/handoffd"
        logLevel = "info"
        link = LinkLimits()
        control = ControlLimits()
        execHandlers = []
        openers = Openers()
        sizePolicy = .default
        codecLimits = .default
        // The built-in declarations are distinct; HandoffConfigTests checks it.
        activityTypes = try! DeclaredActivityTypes(Self.builtInTypes)
    }
}

extension HandoffConfiguration {
    /// The types every machine declares, whatever apps are installed.
    public static let builtInTypes: [ActivityTypeDeclaration] = [FileTransfer.declaration, WebBrowsing.declaration]

    /// The host name, cut to a valid instance name (63 bytes of whole characters).
    public static var defaultDeviceName: String {
        var name = ProcessInfo.processInfo.hostName
        if name.isEmpty { name = "handoffd" }
        while name.utf8.count > ServiceAdvert.maxNameBytes { name.removeLast() }
        return name
    }
}

/// `wide_area:`: where this machine advertises itself and looks for peers beyond the link.
public struct WideAreaConfiguration: Sendable, Equatable {
    /// The zone, e.g. `handoff.example.internal`.
    public var domain: String
    /// The zone's primary server: `host`, `host:port` or `[v6]:port` (port 53 by default).
    public var server: String
    /// A TSIG key statement (`tsig-keygen` output), mode 0600, owned by handoffd's user.
    public var keyFile: String
    public var pollSeconds: Int

    public init(domain: String, server: String, keyFile: String, pollSeconds: Int = 2) {
        (self.domain, self.server, self.keyFile, self.pollSeconds) = (domain, server, keyFile, pollSeconds)
    }
}

/// Limits of the peer link (see docs/LINK.md).
public struct LinkLimits: Sendable, Equatable {
    public var maxFrameBytes = 65_535
    public var handshakeTimeoutSeconds = 10
    public var maxUnauthenticated = 8
    public var maxUnauthenticatedPerSource = 2
    /// Authenticated sessions with one peer, and in all (docs/SECURITY.md, "Bounds on a session").
    public var maxSessionsPerPeer = 4
    public var maxSessions = 256
    /// How long one write to a peer may wait before its session closes as `stalled`.
    public var writeDeadlineMillis = 5_000
    public init() {}
}

/// Limits of the control socket (see docs/CONTROL.md).
public struct ControlLimits: Sendable, Equatable {
    public var maxClients = 32
    public var maxLineBytes = 256 * 1024
    public init() {}
}

/// A command (run without a shell) that continues activities of the given types.
public struct ExecHandlerBinding: Sendable, Equatable {
    public let types: [ActivityType]
    public let command: [String]
    public let timeoutSeconds: Int

    public init(types: [ActivityType], command: [String], timeoutSeconds: Int) {
        self.types = types
        self.command = command
        self.timeoutSeconds = timeoutSeconds
    }
}

extension HandoffConfiguration {
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
}

/// What handoffd shows on the desktop, and where its D-Bus API is.
public struct DesktopSettings: Sendable, Equatable {
    public enum Bus: String, Sendable, CaseIterable {
        /// The session bus when handoffd has one (DBUS_SESSION_BUS_ADDRESS set: a user instance
        /// in a desktop session), else none.
        case auto
        case session
        /// The system bus (the system instance; needs the policy file the package installs).
        case system
        case off
    }

    public var bus = Bus.auto
    /// "Continue from alpha" notifications through org.freedesktop.Notifications.
    public var notifications = true
    /// Activity types never notified about.
    public var notificationsOffFor: [String] = []
    /// The search index (handoffctl search and the desktop's search providers).
    public var search = true

    public init() {}
}

/// What opens a continuation handoffd routed but cannot show itself.
public struct Openers: Sendable, Equatable {
    /// The webpageURL fallback (dispatch step 4): the URL is appended as the last argument.
    public var webpage = ["/usr/bin/xdg-open"]

    public init() {}
}

/// What bounds continuation streams (the `streams:` block; docs/STREAMS.md, docs/SECURITY.md).
public struct StreamSettings: Sendable, Equatable {
    /// What one stream lets the other side have unacknowledged toward it (our buffer per stream).
    public var window = 2 << 20
    /// Streams open (or waiting for their app) with one paired machine, and in all.
    public var maxPerPeer = 16
    public var maxTotal = 64
    /// How long a stream waits for the link to come back before both apps get an error.
    public var resumeDeadline: Duration = .seconds(60)
    /// How long the app that owns an activity has to accept a stream asked of it.
    public var acceptDeadline: Duration = .seconds(10)
    /// Where `handoffctl receive` writes files sent with `handoffctl send-file` (empty: the
    /// receiver's working directory).
    public var receiveDirectory = ""

    public init() {}
}

/// The shared clipboard (the `clipboard:` block; docs/CLIPBOARD.md).
public struct ClipboardConfiguration: Sendable, Equatable {
    /// Shared at all; off, this machine neither offers nor takes offers.
    public var enabled = true
    /// Paired machines (names) this one neither offers its copies to nor takes offers from.
    public var refuseFrom: [String] = []
    /// A copy larger than this stays on its machine.
    public var maxBytes = 16 << 20
    /// How long an offer may be pasted (Apple's Universal Clipboard: about two minutes).
    public var offerSeconds = 120

    public init() {}
}

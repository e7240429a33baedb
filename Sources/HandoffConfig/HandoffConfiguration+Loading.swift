#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore
import HandoffDiscovery

extension HandoffConfiguration {
    public init(contentsOf url: URL) throws(ConfigError) {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw .unreadable(file: url.path, reason: error.fileErrorText)
        }
        try self.init(yaml: text, file: url.path)
    }

    public init(yaml: String, file: String = "handoffd.yaml") throws(ConfigError) {
        self.init()
        // Explicit keys (`? key`) are refused first, with their line: they allow lists and
        // mappings as keys (with Yams, whose duplicate-key check compared them recursively, a
        // 2.5 KB file took 19 s; found by fuzz-config), and none of our keys is one.
        if let line = Self.explicitKeyLine(yaml) {
            throw .syntax(file: file, reason: "line \(line): explicit keys ('? ') are not supported; write each key as a plain name")
        }
        let node: YAMLNode?
        do {
            let composed = try YAMLNode.compose(yaml)
            node = composed.document
            for r in composed.repeated {
                notices.append("\(file): '\(r.key)' is given again on line \(r.line); that later value is used")
            }
        } catch {
            // libyaml's words for a tab ("found character that cannot start any token") do not say
            // it is the tab: said here, where the line is at hand.
            let line = yaml.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(max(error.line - 1, 0)).first
            let tab = line?.contains("\t") == true ? "; that line has a tab, and YAML indents with spaces only" : ""
            throw .syntax(file: file, reason: "\(error)" + tab)
        }
        guard let node else { return }  // an empty file: all defaults
        try Self.checkKeys(node, section: "", path: "", file: file)
        let raw: ConfigFile
        do { raw = try YAMLNodeDecoder.decode(ConfigFile.self, from: node) } catch let error as DecodingError {
            throw Self.describe(error, file: file)
        } catch {
            throw .syntax(file: file, reason: "\(error)")
        }
        try apply(raw, file: file)
    }

    private mutating func apply(_ raw: ConfigFile, file: String) throws(ConfigError) {
        if let port = raw.peer_port {
            guard (1...65_535).contains(port) else { throw .invalid(file: file, key: "peer_port", reason: "must be between 1 and 65535") }
            peerPort = port
        }
        refusePushesFrom = raw.refuse_pushes_from ?? []
        if let peers = raw.peers {
            staticPeers = try peers.map { (text: String) throws(ConfigError) -> PeerEndpoint in
                // The default port is the one this machine uses: peers usually all keep 7340.
                guard let e = PeerEndpoint(parsing: text, defaultPort: peerPort) else {
                    throw .invalid(
                        file: file, key: "peers",
                        reason: "'\(text)' is not an address: write host, host:port, or [IPv6]:port, such as 192.0.2.7:7340")
                }
                return e
            }
        }
        if let seconds = raw.advert_rotation_seconds {
            guard (2...86_400).contains(seconds) else {
                throw .invalid(file: file, key: "advert_rotation_seconds", reason: "must be between 2 and 86400 (a day); the default is 900")
            }
            advertRotationSeconds = seconds
        }
        if let seconds = raw.advert_rewrite_seconds {
            guard seconds.isFinite, (0.1...3_600).contains(seconds) else {
                throw .invalid(
                    file: file, key: "advert_rewrite_seconds",
                    reason: "must be between 0.1 and 3600 seconds; the default is 30 (a mean: rewrites come at random moments)")
            }
            advertRewriteSeconds = seconds
        }
        if let w = raw.wide_area {
            func required(_ value: String?, _ key: String, _ example: String) throws(ConfigError) -> String {
                guard let value, !value.trimmingSpaces.isEmpty else {
                    throw .invalid(file: file, key: "wide_area.\(key)", reason: "is required with wide_area, e.g. \(example)")
                }
                return value
            }
            let domain = try required(w.domain, "domain", "handoff.example.internal")
            let labels =
                domain.hasSuffix(".")
                ? domain.dropLast().split(separator: ".", omittingEmptySubsequences: false)
                : domain.split(separator: ".", omittingEmptySubsequences: false)
            guard domain.utf8.count <= 253,
                labels.allSatisfy({
                    !$0.isEmpty && $0.utf8.count <= 63 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
                })
            else {
                throw .invalid(
                    file: file, key: "wide_area.domain",
                    reason: "'\(domain)' is not a DNS domain name (letters, digits, '-' and '_' in dot-separated labels)")
            }
            let server = try required(w.server, "server", "192.0.2.53 or ns1.example.internal:53")
            guard PeerEndpoint(parsing: server, defaultPort: 53) != nil else {
                throw .invalid(file: file, key: "wide_area.server", reason: "'\(server)' is not host, host:port or [IPv6]:port")
            }
            let keyFile = try required(w.key_file, "key_file", "/etc/handoffd/wide-area.key")
            guard keyFile.hasPrefix("/") else {
                throw .invalid(file: file, key: "wide_area.key_file", reason: "must be an absolute path, e.g. /etc/handoffd/wide-area.key")
            }
            let poll = w.poll_seconds ?? 2
            guard (1...3600).contains(poll) else { throw .invalid(file: file, key: "wide_area.poll_seconds", reason: "must be between 1 and 3600") }
            wideArea = WideAreaConfiguration(domain: domain, server: server, keyFile: keyFile, pollSeconds: poll)
        }
        if let names = raw.interfaces, !names.isEmpty {
            // Restricting the link and the advert to some interfaces protected nothing the
            // authenticated link does not: trust comes from the pinned keys, never from the
            // network a connection arrives on. Kept readable so that old files still load.
            notices.append(
                "\(file): interfaces is no longer used and is ignored: handoffd listens on every address and trusts only paired keys; to keep the advert off an interface, set allow-interfaces in /etc/avahi/avahi-daemon.conf, and filter the peer port with the firewall"
            )
        }
        func absolute(_ path: String?, _ key: String) throws(ConfigError) -> String? {
            guard let path else { return nil }
            guard path.hasPrefix("/") else { throw .invalid(file: file, key: key, reason: "must be an absolute path") }
            return path
        }
        stateDirectory = try absolute(raw.state_directory, "state_directory") ?? stateDirectory
        runtimeDirectory = try absolute(raw.runtime_directory, "runtime_directory") ?? runtimeDirectory
        if raw.library != nil {
            notices.append(
                "\(file): library is no longer read by handoffd and is ignored: the books are Hawk Notes' own content (hawknotes --library, or HAWKNOTES_LIBRARY)"
            )
        }
        if let level = raw.log_level {
            guard Self.logLevels.contains(level) else {
                throw .invalid(file: file, key: "log_level", reason: "must be one of \(Self.logLevels.joined(separator: ", "))")
            }
            logLevel = level
        }
        if let opener = raw.opener {
            guard let first = opener.first, first.hasPrefix("/") else {
                throw .invalid(file: file, key: "opener", reason: "must be a command with an absolute path, such as [/usr/bin/xdg-open]")
            }
            openers.webpage = opener
        }
        if raw.scene_opener != nil {
            notices.append(
                "\(file): scene_opener is no longer used and is ignored: handoffd starts the app that declares an activity's type to continue it (its Exec=, docs/APPS.md)"
            )
        }
        if let st = raw.streams {
            func within(_ v: Int?, _ key: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int? {
                guard let v else { return nil }
                guard range.contains(v) else {
                    throw .invalid(file: file, key: "streams.\(key)", reason: "must be between \(range.lowerBound) and \(range.upperBound)")
                }
                return v
            }
            streams.window = try within(st.window_bytes, "window_bytes", 65_536...(64 << 20)) ?? streams.window
            streams.maxPerPeer = try within(st.max_per_peer, "max_per_peer", 1...256) ?? streams.maxPerPeer
            streams.maxTotal = try within(st.max_total, "max_total", 1...1024) ?? streams.maxTotal
            if let r = try within(st.resume_seconds, "resume_seconds", 1...3600) { streams.resumeDeadline = .seconds(r) }
            if let a = try within(st.accept_seconds, "accept_seconds", 1...300) { streams.acceptDeadline = .seconds(a) }
            streams.receiveDirectory = try absolute(st.receive_directory, "streams.receive_directory") ?? streams.receiveDirectory
        }
        if let cb = raw.clipboard {
            func within(_ v: Int?, _ key: String, _ range: ClosedRange<Int>, _ otherwise: Int) throws(ConfigError) -> Int {
                guard let v else { return otherwise }
                guard range.contains(v) else {
                    throw .invalid(file: file, key: "clipboard.\(key)", reason: "must be between \(range.lowerBound) and \(range.upperBound)")
                }
                return v
            }
            clipboard.enabled = cb.enabled ?? clipboard.enabled
            clipboard.refuseFrom = cb.refuse_from ?? []
            clipboard.maxBytes = try within(cb.max_bytes, "max_bytes", 1...(256 << 20), clipboard.maxBytes)
            clipboard.offerSeconds = try within(cb.offer_seconds, "offer_seconds", 5...86_400, clipboard.offerSeconds)
        }
        if let d = raw.desktop {
            if let bus = d.dbus {
                guard let choice = DesktopSettings.Bus(rawValue: bus) else {
                    throw .invalid(file: file, key: "desktop.dbus", reason: "must be one of auto, session, system, off")
                }
                desktop.bus = choice
            }
            desktop.notifications = d.notifications ?? desktop.notifications
            desktop.notificationsOffFor = d.notifications_off_for ?? desktop.notificationsOffFor
            desktop.search = d.search ?? desktop.search
        }
        if let name = raw.device_name {
            do throws(DiscoveryError) { try ServiceAdvert.check(name: name) } catch {
                if case .invalidInstanceName(_, let reason) = error {
                    throw .invalid(file: file, key: "device_name", reason: reason)
                }
                throw .invalid(file: file, key: "device_name", reason: error.description)
            }
            deviceName = name
        }
        if let l = raw.limits {
            func positive(_ v: Int?, _ key: String) throws(ConfigError) -> Int? {
                guard let v else { return nil }
                if v <= 0 { throw .invalid(file: file, key: "limits.\(key)", reason: "must be a positive number") }
                return v
            }
            sizePolicy.warnAbove = try positive(l.activity_warn_bytes, "activity_warn_bytes") ?? sizePolicy.warnAbove
            sizePolicy.hardLimit = try positive(l.activity_max_bytes, "activity_max_bytes") ?? sizePolicy.hardLimit
            codecLimits.maxDepth = try positive(l.decode_max_depth, "decode_max_depth") ?? codecLimits.maxDepth
            codecLimits.maxValues = try positive(l.decode_max_values, "decode_max_values") ?? codecLimits.maxValues
            codecLimits.maxBytes = try positive(l.decode_max_bytes, "decode_max_bytes") ?? codecLimits.maxBytes
            link.maxFrameBytes = try positive(l.max_frame_bytes, "max_frame_bytes") ?? link.maxFrameBytes
            link.handshakeTimeoutSeconds = try positive(l.handshake_timeout_seconds, "handshake_timeout_seconds") ?? link.handshakeTimeoutSeconds
            link.maxUnauthenticated = try positive(l.max_unauthenticated, "max_unauthenticated") ?? link.maxUnauthenticated
            link.maxUnauthenticatedPerSource =
                try positive(l.max_unauthenticated_per_source, "max_unauthenticated_per_source") ?? link.maxUnauthenticatedPerSource
            link.maxSessionsPerPeer = try positive(l.max_sessions_per_peer, "max_sessions_per_peer") ?? link.maxSessionsPerPeer
            link.maxSessions = try positive(l.max_sessions, "max_sessions") ?? link.maxSessions
            link.writeDeadlineMillis = try positive(l.write_deadline_ms, "write_deadline_ms") ?? link.writeDeadlineMillis
            if link.maxSessions > 512 {
                throw .invalid(file: file, key: "limits.max_sessions", reason: "must be at most 512 (each is a descriptor; the unit allows 1024)")
            }
            control.maxClients = try positive(l.max_control_clients, "max_control_clients") ?? control.maxClients
            control.maxLineBytes = try positive(l.max_control_line_bytes, "max_control_line_bytes") ?? control.maxLineBytes
            if link.maxFrameBytes > 65_535 || link.maxFrameBytes < 4_096 {
                throw .invalid(file: file, key: "limits.max_frame_bytes", reason: "must be 4096 to 65535 (the largest Noise message)")
            }
            let fitting = ActivitySizePolicy.largestFitting(frameBytes: link.maxFrameBytes)
            if l.activity_max_bytes == nil {
                sizePolicy.hardLimit = min(sizePolicy.hardLimit, fitting)
            } else if sizePolicy.hardLimit > fitting {
                throw .invalid(
                    file: file, key: "limits.activity_max_bytes",
                    reason:
                        "(\(sizePolicy.hardLimit)) exceeds \(fitting), the largest activity a frame of limits.max_frame_bytes (\(link.maxFrameBytes)) carries; lower it or raise max_frame_bytes"
                )
            }
            if sizePolicy.hardLimit > codecLimits.maxBytes {
                throw .invalid(
                    file: file, key: "limits.activity_max_bytes",
                    reason:
                        "(\(sizePolicy.hardLimit)) exceeds limits.decode_max_bytes (\(codecLimits.maxBytes)); peers could not decode such activities")
            }
        }
        if let entries = raw.activity_types {
            var list: [ActivityTypeDeclaration] = []
            for (i, e) in entries.enumerated() {
                let key = "\(DeclaredActivityTypes.configKey)[\(i)].type"
                do throws(ActivityError) {
                    list.append(
                        ActivityTypeDeclaration(
                            type: try ActivityType(e.type),
                            requiredKeys: Set(e.required_keys ?? []),
                            payload: e.payload, search: e.search ?? true, streams: e.streams ?? true))
                } catch {
                    throw .invalid(file: file, key: key, reason: error.description)
                }
            }
            // Added to what is always declared (files, web pages) and what apps declare: declaring
            // one's own types here took those away without a word.
            do throws(ActivityError) { activityTypes = try activityTypes.adding(list) } catch {
                throw .invalid(file: file, key: DeclaredActivityTypes.configKey, reason: error.description)
            }
            localActivityTypes = list
        }
        if let directories = raw.app_directories {
            appDirectories = try directories.enumerated().map { (i, d) throws(ConfigError) in try absolute(d, "app_directories[\(i)]")! }
        }
        if let entries = raw.handlers {
            var bound = Set<ActivityType>()
            execHandlers = []
            for (i, e) in entries.enumerated() {
                var types: [ActivityType] = []
                for (j, t) in e.types.enumerated() {
                    let key = "handlers[\(i)].types[\(j)]"
                    let type: ActivityType
                    do throws(ActivityError) { type = try ActivityType(t) } catch { throw .invalid(file: file, key: key, reason: error.description) }
                    guard bound.insert(type).inserted else { throw .invalid(file: file, key: key, reason: "'\(t)' has two handlers") }
                    types.append(type)
                }
                if types.isEmpty { throw .invalid(file: file, key: "handlers[\(i)].types", reason: "must name at least one type") }
                guard let program = e.exec.first, program.hasPrefix("/") else {
                    throw .invalid(
                        file: file, key: "handlers[\(i)].exec", reason: "must be a command with an absolute path (it runs without a shell)")
                }
                let timeout = e.timeout_seconds ?? 10
                guard timeout > 0 else { throw .invalid(file: file, key: "handlers[\(i)].timeout_seconds", reason: "must be a positive number") }
                execHandlers.append(ExecHandlerBinding(types: types, command: e.exec, timeoutSeconds: timeout))
            }
        }
    }

    /// The first line with an explicit-key indicator: `?` then a space or the line's end, first on
    /// its line or after `{`, `[` or `,` (flow collections). Comments are skipped.
    static func explicitKeyLine(_ yaml: String) -> Int? {
        for (n, line) in yaml.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let bytes = Array(line.utf8)
            var previous: UInt8 = 0x0A  // the start of the line counts as a separator
            var quote: UInt8? = nil
            for (i, b) in bytes.enumerated() {
                if let q = quote {
                    if b == q { quote = nil }
                    continue
                }
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                    quote = b
                    continue
                }
                if b == UInt8(ascii: "#") && (i == 0 || bytes[i - 1] == 0x20 || bytes[i - 1] == 0x09) { break }
                if b == 0x20 || b == 0x09 { continue }
                if b == UInt8(ascii: "?"),
                    [0x0A, UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: ":")].contains(previous)
                {
                    let next = i + 1 < bytes.count ? bytes[i + 1] : 0x20
                    if next == 0x20 || next == 0x09 || next == 0x0D { return n + 1 }
                }
                previous = b
            }
        }
        return nil
    }

    private static func checkKeys(_ node: YAMLNode, section: String, path: String, file: String) throws(ConfigError) {
        switch node {
        case .mapping(let entries, _):
            let known = ConfigFile.knownKeys[section]
            for (name, v) in entries {
                let keyPath = path.isEmpty ? name : "\(path).\(name)"
                if let known, !known.contains(name) {
                    let nearest = NearestKey.to(name, among: known).map { path.isEmpty ? $0 : "\(path).\($0)" }
                    throw .unknownKey(file: file, key: keyPath, nearest: nearest)
                }
                // Whole numbers are decimal only: YAML 1.1 also reads base 60 (`8666:66`, which
                // overflowed and trapped inside Yams, found by fuzz-config), octal and hex.
                if ConfigFile.integerKeys.contains(section.isEmpty ? name : "\(section).\(name)") {
                    guard case .scalar(let text, _, _) = v, Int(text) != nil else {
                        throw .invalid(file: file, key: keyPath, reason: "must be a whole number in decimal")
                    }
                }
                try checkKeys(v, section: section.isEmpty ? name : "\(section).\(name)", path: keyPath, file: file)
            }
        case .sequence(let items, _):
            for (i, item) in items.enumerated() {
                try checkKeys(item, section: section + "[]", path: "\(path)[\(i)]", file: file)
            }
        case .scalar:
            break
        }
    }

    /// A type as the person who writes the file knows it.
    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Bool.Type: "true or false"
        case is Int.Type: "a whole number"
        case is [Any].Type: "a list"
        case is [String: Any].Type: "a mapping (key: value)"
        default: "\(type)"
        }
    }

    private static func describe(_ error: DecodingError, file: String) -> ConfigError {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce("") { p, k in
                if let i = k.intValue { return "\(p)[\(i)]" }
                return p.isEmpty ? k.stringValue : "\(p).\(k.stringValue)"
            }
        }
        switch error {
        case .keyNotFound(let key, let ctx):
            return .invalid(file: file, key: path(ctx.codingPath + [key]), reason: "is missing")
        case .typeMismatch(let type, let ctx):
            return .invalid(file: file, key: path(ctx.codingPath), reason: "must be \(describe(type))")
        case .valueNotFound(let type, let ctx):
            return .invalid(file: file, key: path(ctx.codingPath), reason: "must be \(type), not empty")
        case .dataCorrupted(let ctx):
            return .invalid(file: file, key: path(ctx.codingPath), reason: ctx.debugDescription)
        @unknown default:
            return .syntax(file: file, reason: "\(error)")
        }
    }
}

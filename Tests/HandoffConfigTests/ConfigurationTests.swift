import Foundation
import HandoffContent
import HandoffCore
import Testing
@testable import HandoffConfig

let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite struct ConfigurationTests {
    @Test func shippedFileEqualsTheBuiltInDefaults() throws {
        let shipped = try HandoffConfiguration(contentsOf: repositoryRoot.appendingPathComponent("config/handoffd.yaml"))
        let defaults = HandoffConfiguration()
        #expect(shipped.sizePolicy == defaults.sizePolicy)
        #expect(shipped.codecLimits == defaults.codecLimits)
        #expect(shipped.activityTypes.declarations == defaults.activityTypes.declarations)
        #expect(shipped.peerPort == defaults.peerPort && shipped.notices.isEmpty)
        #expect(shipped.stateDirectory == defaults.stateDirectory && shipped.runtimeDirectory == defaults.runtimeDirectory)
        #expect(shipped.logLevel == defaults.logLevel && shipped.link == defaults.link && shipped.control == defaults.control)
        #expect(shipped.execHandlers == defaults.execHandlers && shipped.openers == defaults.openers)
        // What every machine declares: the files of `handoffctl send-file`, web pages, ...
        #expect(defaults.activityTypes.types == HandoffConfiguration.builtInTypes.map(\.type).sorted())
        #expect(defaults.activityTypes.declarations[WebBrowsing.type] == WebBrowsing.declaration)
        #expect(defaults.activityTypes.declarations[FileTransfer.type] == FileTransfer.declaration)
    }

    @Test func emptyFileIsAllDefaults() throws {
        let c = try HandoffConfiguration(yaml: "# nothing\n")
        #expect(c.activityTypes.types == HandoffConfiguration().activityTypes.types)
    }

    @Test func valuesAreRead() throws {
        let c = try HandoffConfiguration(
            yaml: """
                library: /srv/lib.json
                limits: { activity_max_bytes: 1000, decode_max_depth: 8 }
                activity_types:
                  - type: org.example.note
                    required_keys: [noteID]
                """)
        // The books are Hawk Notes' own: handoffd says it no longer reads them.
        #expect(c.notices.contains { $0.contains("library is no longer read by handoffd") })
        #expect(try HandoffConfiguration(yaml: "app_directories: [/opt/apps]").appDirectories == ["/opt/apps"])
        #expect(try HandoffConfiguration(yaml: "scene_opener: [/usr/bin/x]").notices.contains { $0.contains("scene_opener is no longer used") })
        #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "app_directories: [relative]") }
        #expect(c.sizePolicy.hardLimit == 1000 && c.codecLimits.maxDepth == 8)
        #expect(c.codecLimits.maxValues == CodecLimits.default.maxValues)
        // Declared types are added to the built-in ones; a type declared nowhere is refused, naming the key.
        #expect(c.activityTypes.types.map(\.rawValue) == ["org.example.note"] + HandoffConfiguration().activityTypes.types.map(\.rawValue))
        let a = UserActivity(type: try ActivityType("org.example.other"))
        #expect(throws: ActivityError.undeclaredType("org.example.other", configKey: "activity_types")) {
            try c.activityTypes.validate(a, at: Date())
        }
    }

    @Test func deviceName() throws {
        #expect(try HandoffConfiguration(yaml: "device_name: Küche").deviceName == "Küche")
        #expect(HandoffConfiguration().deviceName == HandoffConfiguration.defaultDeviceName)
        #expect(!HandoffConfiguration.defaultDeviceName.isEmpty)
        let long = #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "device_name: \(String(repeating: "x", count: 64))") }
        #expect(long?.key == "device_name")
        let empty = #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "device_name: ''") }
        #expect(empty?.key == "device_name")
    }

    @Test func daemonSettings() throws {
        let c = try HandoffConfiguration(
            yaml: """
                peer_port: 9000
                interfaces: [eth0]
                state_directory: /srv/state
                runtime_directory: /srv/run
                log_level: debug
                limits: {max_frame_bytes: 4096, handshake_timeout_seconds: 3, max_control_clients: 4}
                activity_types: [{type: org.example.note}, {type: org.example.other}]
                handlers:
                  - types: [org.example.note]
                    exec: [/usr/bin/notes, --continue]
                    timeout_seconds: 2
                opener: [/usr/bin/firefox, --new-tab]
                """)
        #expect(c.peerPort == 9000 && c.logLevel == "debug")
        // interfaces is read (old files load) and not applied, saying so.
        #expect(c.notices.count == 1 && c.notices[0].contains("interfaces is no longer used"))
        #expect(c.stateDirectory == "/srv/state" && c.runtimeDirectory == "/srv/run")
        #expect(c.link.maxFrameBytes == 4096 && c.link.handshakeTimeoutSeconds == 3 && c.control.maxClients == 4)
        #expect(
            c.execHandlers == [
                ExecHandlerBinding(types: [try ActivityType("org.example.note")], command: ["/usr/bin/notes", "--continue"], timeoutSeconds: 2)
            ])
        #expect(c.openers.webpage == ["/usr/bin/firefox", "--new-tab"])
    }

    @Test func staticPeers() throws {
        let c = try HandoffConfiguration(yaml: "peer_port: 7400\npeers: [192.0.2.7, \"192.0.2.8:7341\", \"[2001:db8::5]:7342\", laptop.example]")
        #expect(
            c.staticPeers == [
                PeerEndpoint(host: "192.0.2.7", port: 7400), PeerEndpoint(host: "192.0.2.8", port: 7341),
                PeerEndpoint(host: "2001:db8::5", port: 7342), PeerEndpoint(host: "laptop.example", port: 7400)
            ])
        #expect(try HandoffConfiguration(yaml: "device_name: x").staticPeers.isEmpty)
    }

    @Test func desktopSettings() throws {
        let defaults = try HandoffConfiguration(yaml: "device_name: x").desktop
        #expect(defaults == DesktopSettings())
        #expect(defaults.bus == .auto && defaults.notifications && defaults.search)
        let c = try HandoffConfiguration(
            yaml: "desktop: {dbus: session, notifications: false, notifications_off_for: [org.hawknotes.draftNote], search: false}"
        ).desktop
        #expect(c.bus == .session && !c.notifications && !c.search)
        #expect(c.notificationsOffFor == ["org.hawknotes.draftNote"])
        let e = #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "desktop: {dbus: kde}") }
        #expect(e?.key == "desktop.dbus")
        #expect(throws: ConfigError.unknownKey(file: "f", key: "desktop.notify", nearest: nil)) {
            try HandoffConfiguration(yaml: "desktop: {notify: no}", file: "f")
        }
    }

    @Test func advertRotation() throws {
        #expect(try HandoffConfiguration(yaml: "device_name: x").advertRotationSeconds == 900)
        #expect(try HandoffConfiguration(yaml: "advert_rotation_seconds: 4").advertRotationSeconds == 4)
        #expect(try HandoffConfiguration(yaml: "device_name: x").advertRewriteSeconds == 30)
        #expect(try HandoffConfiguration(yaml: "advert_rewrite_seconds: 0.5").advertRewriteSeconds == 0.5)
        #expect(try HandoffConfiguration(yaml: "advert_rewrite_seconds: 45").advertRewriteSeconds == 45)
    }

    @Test func daemonSettingErrorsNameTheirKey() {
        let cases: [(String, String)] = [
            ("peer_port: 70000", "peer_port"),
            ("advert_rotation_seconds: 1", "advert_rotation_seconds"),
            ("advert_rotation_seconds: 100000", "advert_rotation_seconds"),
            ("advert_rewrite_seconds: 0", "advert_rewrite_seconds"),
            ("advert_rewrite_seconds: 7200", "advert_rewrite_seconds"),
            ("advert_rewrite_seconds: soon", "advert_rewrite_seconds"),
            ("peers: [\"192.0.2.7:99999\"]", "peers"),
            ("peers: [\"[2001:db8::1\"]", "peers"),
            ("state_directory: relative/dir", "state_directory"),
            ("log_level: loud", "log_level"),
            ("opener: [xdg-open]", "opener"),
            ("limits: {max_frame_bytes: 70000}", "limits.max_frame_bytes"),
            ("handlers: [{types: [org.hawknotes.bookDetail], exec: [notes]}]", "handlers[0].exec"),
            ("handlers: [{types: [not-a-type], exec: [/bin/true]}]", "handlers[0].types[0]"),
            (
                "handlers: [{types: [org.hawknotes.bookDetail], exec: [/bin/true]}, {types: [org.hawknotes.bookDetail], exec: [/bin/false]}]",
                "handlers[1].types[0]"
            ),
            ("handlers: [{types: [], exec: [/bin/true]}]", "handlers[0].types"),
            ("handlers: [{types: [org.hawknotes.bookDetail], exec: [/bin/true], timeout_seconds: 0}]", "handlers[0].timeout_seconds"),
            ("handlers: [{types: [org.hawknotes.bookDetail], exec: [/bin/true], shell: yes}]", "handlers[0].shell")
        ]
        for (yaml, key) in cases {
            let e = #expect(throws: ConfigError.self, "\(yaml)") { try HandoffConfiguration(yaml: yaml) }
            #expect(e?.key == key, "\(yaml)")
        }
    }

    @Test func unknownKeysNameTheirPathAndTheKeyMeant() {
        #expect(throws: ConfigError.unknownKey(file: "f", key: "activty_types", nearest: "activity_types")) {
            try HandoffConfiguration(yaml: "activty_types: []", file: "f")
        }
        #expect(throws: ConfigError.unknownKey(file: "f", key: "limits.max_bytes", nearest: nil)) {
            try HandoffConfiguration(yaml: "limits: {max_bytes: 1}", file: "f")
        }
        #expect(throws: ConfigError.unknownKey(file: "f", key: "limits.max_frame_byte", nearest: "limits.max_frame_bytes")) {
            try HandoffConfiguration(yaml: "limits: {max_frame_byte: 1}", file: "f")
        }
        #expect(throws: ConfigError.unknownKey(file: "f", key: "activity_types[0].requires", nearest: nil)) {
            try HandoffConfiguration(yaml: "activity_types: [{type: a.b, requires: [x]}]", file: "f")
        }
        #expect(throws: ConfigError.unknownKey(file: "f", key: "handlers[0].tpyes", nearest: "handlers[0].types")) {
            try HandoffConfiguration(yaml: "handlers: [{tpyes: [a.b], exec: [/bin/true]}]", file: "f")
        }
        let e = ConfigError.unknownKey(file: "/etc/handoffd/handoffd.yaml", key: "log_levle", nearest: "log_level")
        #expect(
            e.description
                == "/etc/handoffd/handoffd.yaml: unknown key 'log_levle'; did you mean 'log_level'? (the shipped config/handoffd.yaml lists every key)"
        )
    }

    @Test func nearestKeyCountsSlipsNotLikeness() {
        #expect(NearestKey.distance(Array("peer_port".utf8), Array("peer_prot".utf8)) == 1)
        #expect(NearestKey.distance(Array("abc".utf8), Array("".utf8)) == 3)
        #expect(NearestKey.distance(Array("kitten".utf8), Array("sitting".utf8)) == 3)
        #expect(NearestKey.to("peer_prot", among: ["peer_port", "peers"]) == "peer_port")
        // Short keys take one slip only; a different word is no slip.
        #expect(NearestKey.to("dbs", among: ["dbus"]) == "dbus")
        #expect(NearestKey.to("db", among: ["dbus"]) == nil)
        #expect(NearestKey.to("notify", among: ["notifications"]) == nil)
    }

    @Test func wrongKindsNameTheirKey() {
        let e = #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "limits: {decode_max_depth: deep}") }
        #expect(e?.key == "limits.decode_max_depth")
        let e2 = #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "activity_types: [{payload: X}]") }
        #expect(e2?.key == "activity_types[0].type")
    }

    @Test func invalidValues() {
        let e = #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "activity_types: [{type: a.b}, {type: nodots}]") }
        #expect(e?.key == "activity_types[1].type")
        let dup = #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "activity_types: [{type: a.b}, {type: a.b}]") }
        #expect(dup?.key == "activity_types")
        let neg = #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "limits: {decode_max_values: -1}") }
        #expect(neg?.key == "limits.decode_max_values")
        let over = #expect(throws: ConfigError.self) {
            try HandoffConfiguration(yaml: "limits: {activity_max_bytes: 300000}")
        }
        #expect(over?.key == "limits.activity_max_bytes")
    }

    @Test func syntaxAndUnreadable() {
        let e = #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "limits: [unclosed") }
        guard case .syntax? = e else {
            Issue.record("got \(String(describing: e))")
            return
        }
        let u = #expect(throws: ConfigError.self) { try HandoffConfiguration(contentsOf: URL(fileURLWithPath: "/nonexistent.yaml")) }
        guard case .unreadable(let file, _)? = u else {
            Issue.record("got \(String(describing: u))")
            return
        }
        #expect(file == "/nonexistent.yaml")
        // A tab: libyaml's words do not say so; ours do.
        let tab = #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: "limits:\n\tmax_sessions: 3\n") }
        let said = tab.map { "\($0)" } ?? ""
        #expect(said.contains("line 2: ") && said.contains("that line has a tab, and YAML indents with spaces only"), "\(said)")
    }
}

/// Found by fuzz-config (a campaign): explicit keys let a 2.5 KB file take Yams 19 s
/// (its duplicate-key check compares list and mapping keys recursively). They are refused first.
@Suite struct ExplicitKeyTests {
    @Test(arguments: ["? [a, b]\n: 1\n", "limits:\n  ? max_frame_bytes\n  : 4096\n", "x: {? a: b}\n", "- ? k\n  : v\n"])
    func explicitKeysAreRefusedWithTheLine(_ yaml: String) {
        #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: yaml) }
        #expect(HandoffConfiguration.explicitKeyLine(yaml) != nil)
    }

    @Test(arguments: ["device_name: \"what? \"\n", "# a comment? yes\npeer_port: 7340\n", "opener: [/usr/bin/xdg-open]\n"])
    func questionMarksElsewhereAreFine(_ yaml: String) {
        #expect(HandoffConfiguration.explicitKeyLine(yaml) == nil)
    }
}

/// Found by fuzz-config: a YAML 1.1 base-60 number overflowed inside Yams and trapped (handoffd
/// died on its configuration instead of naming the key). Whole numbers are checked as decimal first.
@Suite struct WholeNumberTests {
    @Test(arguments: [
        "limits:\n  max_frame_bytes: 866666666666666666:6666666666666\n", "peer_port: 1:30\n", "peer_port: 0x1CAC\n",
        "handlers:\n  - types: [a.b]\n    exec: [/bin/true]\n    timeout_seconds: 99999999999999999999\n"
    ])
    func onlyDecimalWholeNumbers(_ yaml: String) {
        #expect(throws: ConfigError.self) { try HandoffConfiguration(yaml: yaml) }
    }

    @Test func decimalIsRead() throws {
        #expect(try HandoffConfiguration(yaml: "peer_port: 7341\n").peerPort == 7341)
    }
}

/// The configuration's YAML reader (libyaml's events, composed and decoded here): what YAML 1.1
/// allows that a configuration has no use for is refused with the line and what to do.
@Suite struct YAMLReadingTests {
    func reason(_ yaml: String) -> String {
        do {
            _ = try HandoffConfiguration(yaml: yaml)
            return "(accepted)"
        } catch { return error.description }
    }

    @Test func aliasesSecondDocumentsAndDeepNestingAreRefusedWithTheLine() {
        #expect(reason("peers: &p [192.0.2.1]\nrefuse_pushes_from: *p\n").contains("line 2: aliases"))
        #expect(reason("peer_port: 7340\n---\npeer_port: 7341\n").contains("line 2: a second document"))
        #expect(reason(String(repeating: "[", count: 40) + String(repeating: "]", count: 40)).contains("nested more than 32 deep"))
        #expect(reason("limits: [unclosed").contains("while parsing a flow sequence that starts on line 1"))
    }

    @Test func aKeyGivenAgainKeepsTheLaterValueWithANotice() throws {
        // A line appended to the file overrides, as with PyYAML and Yams; the notice says so.
        let c = try HandoffConfiguration(yaml: "peer_port: 7340\ndevice_name: a\npeer_port: 7341\n")
        #expect(c.peerPort == 7341)
        #expect(c.notices == ["handoffd.yaml: 'peer_port' is given again on line 3; that later value is used"])
        #expect(reason("peer_port: 7340\npeer_port: many\n").contains("peer_port"))
    }

    @Test func scalarsReadAsYAML11Does() throws {
        for (text, value) in [("yes", true), ("On", true), ("FALSE", false), ("no", false)] {
            #expect(try HandoffConfiguration(yaml: "desktop: {notifications: \(text)}").desktop.notifications == value)
        }
        // Any scalar is text where text is wanted, quoted or not; `~` and nothing mean "not set".
        #expect(try HandoffConfiguration(yaml: "device_name: 1234").deviceName == "1234")
        #expect(try HandoffConfiguration(yaml: "device_name: 'yes'").deviceName == "yes")
        #expect(try HandoffConfiguration(yaml: "refuse_pushes_from: ~\n").refusePushesFrom.isEmpty)
        #expect(try HandoffConfiguration(yaml: "limits:\n").link == HandoffConfiguration().link)
    }

    @Test func aValueOfTheWrongShapeNamesTheKeyAndWhatItMustBe() {
        #expect(reason("desktop: {notifications: maybe}").contains("desktop.notifications") == true)
        #expect(reason("desktop: {notifications: maybe}").contains("must be true or false"))
        #expect(reason("peers: 192.0.2.1").contains("must be a list"))
        #expect(reason("limits: 5").contains("must be a mapping"))
    }
}

/// Declaring one's own types in handoffd.yaml took away the built-in ones (files, web pages),
/// without a word: the configuration's types are now added to them.
@Suite struct DeclaredTypesAddedTests {
    @Test func aLocalTypeAddsToTheBuiltInOnes() throws {
        let c = try HandoffConfiguration(yaml: "activity_types:\n  - type: org.example.reading\n    required_keys: [url]\n")
        let types = Set(c.activityTypes.types.map(\.rawValue))
        #expect(types == ["org.example.reading", "org.handoffd.file", "org.handoffd.browsing-web"])
        #expect(c.activityTypes.declarations[try ActivityType("org.example.reading")]?.requiredKeys == ["url"])
    }

    @Test func aLocalDeclarationOfABuiltInTypeTakesItsPlace() throws {
        let c = try HandoffConfiguration(yaml: "activity_types:\n  - type: org.handoffd.file\n    required_keys: [name]\n")
        #expect(c.activityTypes.declarations[FileTransfer.type]?.requiredKeys == ["name"])
        #expect(c.activityTypes.types.count == HandoffConfiguration().activityTypes.types.count)
        #expect(throws: ConfigError.self) {
            try HandoffConfiguration(yaml: "activity_types:\n  - type: org.example.x\n  - type: org.example.x\n")
        }
    }

    @Test func theShippedFileDeclaresNoneOfItsOwn() throws {
        let shipped = try HandoffConfiguration(contentsOf: repositoryRoot.appendingPathComponent("config/handoffd.yaml"))
        #expect(shipped.activityTypes.types == HandoffConfiguration().activityTypes.types)
    }
}

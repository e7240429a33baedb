import Foundation
import HandoffCore
import HandoffTestSupport
import Testing
@testable import HandoffConfig

/// An app's declaration file (docs/APPS.md): read as a key file, every problem at its line, and
/// the directories read in XDG order.
@Suite struct AppFileTests {
    static let readingList = """
        # A reading list, continued on the other machine.
        [Handoff App]
        Name=Reading List
        Exec=/usr/bin/reading-list --continue "a b"

        [Activity org.example.reading.item]
        RequiredKeys=url; title
        Search=false

        [Activity org.example.reading.list]
        Streams=false
        """

    @Test func aGoodFileGivesTheAppAndItsTypes() throws {
        let app = try AppFile.parse(Self.readingList, id: "org.example.ReadingList", file: "/x/org.example.ReadingList.app").get()
        #expect(app.name == "Reading List" && app.id == "org.example.ReadingList")
        #expect(app.launch == .command(["/usr/bin/reading-list", "--continue", "a b"]))
        #expect(app.types.map(\.type.rawValue) == ["org.example.reading.item", "org.example.reading.list"])
        #expect(app.types[0].requiredKeys == ["url", "title"] && !app.types[0].search && app.types[0].streams)
        #expect(app.types[1].search && !app.types[1].streams)
    }

    @Test func eachProblemIsNamedAtItsLine() {
        let text = """
            Name=too early
            [Handoff App]
            Exec=relative/path
            Colour=blue
            [Activity not a type]
            Search=yes
            [Activity org.example.ok]
            Search=maybe
            [Other]
            """
        guard case .failure(let errors) = AppFile.parse(text, id: "org.example.Bad", file: "/f.app") else {
            Issue.record("a bad file was read")
            return
        }
        let said = errors.problems.map(\.description)
        #expect(said.contains { $0.hasPrefix("/f.app:1: Name= comes before any group") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("/f.app:3: Exec='s program") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("/f.app:4: unknown key Colour=") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("/f.app:5: activity type 'not a type' is invalid") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("/f.app:8: Search= is true or false") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("/f.app:9: unknown group [Other]") }, "\(said)")
        #expect(said.contains { $0 == "/f.app: [Handoff App] has no Name=" }, "\(said)")
        // Line 6 is in a group whose header was refused: not reported twice.
        #expect(!said.contains { $0.hasPrefix("/f.app:6:") }, "\(said)")
    }

    @Test func theFileNameIsAReverseDNSIdAndNamesAreBounded() {
        let bad = AppFile.parse(Self.readingList, id: "reading list", file: "/reading list.app")
        #expect((try? bad.get()) == nil)
        let noTypes = AppFile.parse("[Handoff App]\nName=Empty\n", id: "org.example.Empty", file: "/e.app")
        guard case .failure(let e) = noTypes else { return #expect(Bool(false)) }
        #expect(e.problems.map(\.message) == ["declares no activity type; add an [Activity TYPE] group"])
        let bus = try? AppFile.parse(
            "[Handoff App]\nName=B\nDBusActivatable=org.example.B\n[Activity org.example.b]\n", id: "org.example.B", file: "/b.app"
        ).get()
        #expect(bus?.launch == .busName("org.example.B"))
        #expect(
            !BusNameRule.isWellKnownName("1org.example") && !BusNameRule.isWellKnownName("single") && BusNameRule.isWellKnownName("org.ex-ample.A_1"))
    }

    @Test func directoriesAreReadInOrderAndATypeBelongsToTheFirstApp() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let user = root + "/user", system = root + "/system"
        for d in [user, system] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        func write(_ dir: String, _ id: String, _ text: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: "\(dir)/\(id).app")) }
        try write(user, "org.example.Notes", "[Handoff App]\nName=Notes (mine)\n[Activity org.example.note]\n")
        try write(system, "org.example.Notes", "[Handoff App]\nName=Notes (system)\n[Activity org.example.note]\n")
        try write(system, "org.example.Other", "[Handoff App]\nName=Other\n[Activity org.example.note]\n[Activity org.example.other]\n")
        try write(system, "org.example.Files", "[Handoff App]\nName=Files\n[Activity org.handoffd.file]\n")
        try write(system, "org.example.Broken", "[Handoff App]\n")
        let before = InstalledApps.signature(of: [user, system])
        let installed = InstalledApps.load(from: [user, system], builtIn: [FileTransfer.declaration])
        #expect(installed.apps.map(\.name) == ["Notes (mine)", "Files", "Other"])
        #expect(installed.app(declaring: try ActivityType("org.example.note"))?.name == "Notes (mine)")
        #expect(installed.apps.first { $0.name == "Other" }?.types.map(\.type.rawValue) == ["org.example.other"])
        let said = installed.problems.map(\.description)
        #expect(
            said.contains(
                "\(system)/org.example.Other.app: org.example.note is declared by Notes (mine) already; this app's declaration of it is not used"),
            "\(said)")
        #expect(
            said.contains(
                "\(system)/org.example.Files.app: org.handoffd.file is declared by handoffd itself already; this app's declaration of it is not used"),
            "\(said)")
        #expect(said.contains("\(system)/org.example.Broken.app: [Handoff App] has no Name="), "\(said)")
        let declared = installed.declaredTypes(
            builtIn: [FileTransfer.declaration], local: [ActivityTypeDeclaration(type: try ActivityType("org.example.local"))])
        #expect(declared.types.map(\.rawValue) == ["org.example.local", "org.example.note", "org.example.other", "org.handoffd.file"])
        // A change the loader must see: a file removed.
        try FileManager.default.removeItem(atPath: "\(system)/org.example.Broken.app")
        #expect(InstalledApps.signature(of: [user, system]) != before)
    }

    @Test func theXDGDirectoriesComeFromTheEnvironment() {
        #expect(
            InstalledApps.defaultDirectories(environment: ["HOME": "/home/ann"])
                == ["/home/ann/.local/share/handoffd/apps", "/usr/local/share/handoffd/apps", "/usr/share/handoffd/apps"])
        #expect(
            InstalledApps.defaultDirectories(environment: ["XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/a:relative:/b"])
                == ["/d/handoffd/apps", "/a/handoffd/apps", "/b/handoffd/apps"])
    }
}

import Foundation
import HandoffBusAPI
import HandoffControl
import HandoffCore
import Testing

/// org.handoffd.Handoff1's methods are control operations; its XML is docs/dbus/'s.
@Suite struct HandoffInterfaceTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/dbus")

    @Test func theCheckedInXMLIsWhatTheObjectsServe() throws {
        let cases: [(String, [BusInterface], [String])] = [
            ("org.handoffd.Handoff1.xml", [HandoffBusAPI.interface], ["SearchProvider", "Runner"]),
            ("org.gnome.Shell.SearchProvider2.xml", [DesktopSearch.gnome], []),
            ("org.kde.krunner1.xml", [DesktopSearch.krunner], [])
        ]
        for (file, interfaces, children) in cases {
            let doc = try String(contentsOf: Self.docs.appendingPathComponent(file), encoding: .utf8)
            #expect(Introspection.xml(interfaces, children: children) == doc, "docs/dbus/\(file) is out of date")
        }
    }

    @Test func everyMethodIsAKnownOperationWithDistinctNames() {
        let names = HandoffBusAPI.mappings.map(\.method.name)
        #expect(Set(names).count == names.count)
        #expect(Set(HandoffBusAPI.mappings.map(\.op)) == Set(ControlOperationTable.names))
        // The shapes the specifications define.
        #expect(DesktopSearch.gnome.method("GetResultMetas")?.outputSignature == "aa{sv}")
        #expect(DesktopSearch.gnome.method("ActivateResult")?.inputSignature == "sasu")
        #expect(DesktopSearch.krunner.method("Match")?.outputSignature == "a(sssida{sv})")
    }

    @Test func inputsBecomeTheOperationsFields() throws {
        let id = UUID()
        let cont = try #require(HandoffBusAPI.mapping("Continue"))
        let r = try cont.request([.string("alpha"), .string(id.uuidString), .string("")])
        #expect(r.op == "continue")
        #expect(r.arguments == ["peer": "alpha", "activity": .string(id.uuidString)], "an empty optional is left out")
        #expect(try ContinueRequest(request: r).activity == id)
        let remote = try #require(HandoffBusAPI.mapping("ListRemoteActivities")).request([.string("")])
        #expect(remote.arguments == ["remote": true])
        let handler = try #require(HandoffBusAPI.mapping("RegisterHandler")).request([
            .array(element: "s", [.string("org.example.note")]), .string("notes"), .string("")
        ])
        #expect(try HandleRequest(request: handler).types == ["org.example.note"])
        // A value that cannot be read names the argument.
        let publish = try #require(HandoffBusAPI.mapping("Publish"))
        #expect(throws: ControlError.badArgument(name: "activity", reason: BusValueProblem.unsupported("h (a file descriptor)").description)) {
            try publish.request([.vardict([("x", .fd(1))]), .string("")])
        }
    }

    @Test func answersHaveTheirDeclaredShape() {
        let list = HandoffBusAPI.mapping("ListPeers")!.reply(.array([["name": "beta"]]))
        #expect(list.map(\.signature) == ["aa{sv}"])
        #expect(HandoffBusAPI.mapping("ListPeers")!.reply(nil).map(\.signature) == ["aa{sv}"])
        #expect(HandoffBusAPI.mapping("Status")!.reply(["device": "alpha"]).map(\.signature) == ["a{sv}"])
        #expect(HandoffBusAPI.mapping("Resign")!.reply(nil).isEmpty)
        // A descriptor's `h` is added by the door that holds it (BusDoor), after the result.
        for m in HandoffBusAPI.mappings {
            if m.answer == .objectAndDescriptor {
                #expect(m.reply(.dictionary([:])).map(\.signature) + ["h"] == ["a{sv}", "h"])
                #expect(m.method.outputSignature == "a{sv}h")
                continue
            }
            let sample: PropertyListValue? = m.answer == .list ? .array([]) : (m.answer == .object ? .dictionary([:]) : nil)
            #expect(m.reply(sample).map(\.signature).joined() == m.method.outputSignature, "\(m.method.name)")
        }
    }

    @Test func errorNamesComeFromControlCodes() {
        #expect(HandoffBusAPI.errorName("not-found") == "org.handoffd.Handoff1.Error.NotFound")
        #expect(HandoffBusAPI.errorName("bad-argument") == "org.handoffd.Handoff1.Error.BadArgument")
        #expect(HandoffBusAPI.errorName("type-not-declared") == "org.handoffd.Handoff1.Error.TypeNotDeclared")
        #expect(HandoffBusAPI.errorName("") == "org.handoffd.Handoff1.Error.Failed")
        #expect(HandoffBusAPI.errorName("404") == "org.handoffd.Handoff1.Error.Failed", "an element may not start with a digit")
    }

    /// D-Bus can do everything the control socket can: every control operation has a method (it
    /// lacked the scenes' life, the library, pairing and the link's own).
    @Test func everyControlOperationIsOnDBus() {
        let onBus = Set(HandoffBusAPI.mappings.map(\.op))
        let missing = ControlOperationTable.names.filter { !onBus.contains($0) }
        #expect(missing.isEmpty, "no D-Bus method for \(missing)")
        #expect(Set(ControlOperationTable.names).count == ControlOperationTable.all.count, "an operation listed twice")
    }

    /// UpdateScene's `changes` are the request's own fields; the scene named apart wins.
    @Test func aSpreadInputGivesItsEntriesAsFields() throws {
        let update = try #require(HandoffBusAPI.mapping("UpdateScene"))
        #expect(update.method.inputSignature == "sa{sv}")
        let scene = "0D5E9A6C-0E0B-4C1F-9C64-0B7E7C2F3A11"
        let request = try update.request([
            .string(scene), BusValue(.dictionary(["storage": .dictionary(["k": "v"]), "scene": "another", "path": .array([])]))
        ])
        #expect(request.fields.values["scene"] == .string(scene))
        #expect(request.fields.values["storage"] == .dictionary(["k": "v"]))
        #expect(request.fields.values["path"] == .array([]))
    }

    @Test func anotherMachinesCodeNeverBecomesAnErrorNameOfItsOwn() {
        // A peer's code reaches D-Bus as a continuation's or a stream's failure: letters outside
        // ASCII or a name over 255 bytes made dbus-daemon drop handoffd's connection.
        for code in ["évil", String(repeating: "a", count: 300), "x.y", "a-b-c-d", "stream-unknownish", "Not-Found"] {
            #expect(HandoffBusAPI.errorName(FailureCode(code)) == "org.handoffd.Handoff1.Error.Failed", "\(code)")
        }
        for (code, _) in FailureCode.all {
            let name = HandoffBusAPI.errorName(code)
            let last = name.dropFirst(HandoffBusAPI.errorPrefix.count)
            #expect(name.utf8.count <= 255 && last.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } && last.first!.isUppercase, "\(name)")
        }
    }
}

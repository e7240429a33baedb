import Testing
@testable import HandoffCore

@Suite struct ActivityTypeTests {
    @Test(arguments: ["org.hawknotes.characterDetail", "a.b", "com.example-co.view-2", "A.B.C"])
    func acceptsReverseDNS(_ value: String) throws {
        #expect(try ActivityType(value).rawValue == value)
    }

    @Test(arguments: ["", "single", "a..b", ".a.b", "a.b.", "a.b c", "a.b_c", "a.bé", "a/b.c"])
    func refusesMalformed(_ value: String) {
        let error = #expect(throws: ActivityError.self) { try ActivityType(value) }
        guard case .invalidType(let v, _)? = error else {
            Issue.record("wrong error \(String(describing: error))")
            return
        }
        #expect(v == value)
    }

    @Test func refusesMoreThan255Bytes() throws {
        let label = String(repeating: "a", count: 63)
        let ok = [label, label, label, String(repeating: "b", count: 63)].joined(separator: ".")
        #expect(ok.utf8.count == 255)
        _ = try ActivityType(ok)
        #expect(throws: ActivityError.self) { try ActivityType(ok + "c") }
    }
}

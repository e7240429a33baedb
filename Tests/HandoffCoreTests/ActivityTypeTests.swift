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

    /// The one-pass check agrees with the rule as written (labels split at dots, each non-empty,
    /// of letters, digits and '-'; at least two; at most 255 bytes) on 20,000 random strings.
    @Test func theQuickCheckAgreesWithTheRule() {
        let alphabet: [String] = ["a", "Z", "0", "-", ".", ".", "_", "é", " "]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...12, using: &generator)
            let value = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            let labels = value.split(separator: ".", omittingEmptySubsequences: false)
            let allowed = { (b: UInt8) in (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x2D }
            let wellFormedLabels = labels.count >= 2 && labels.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy(allowed) }
            let valid = !value.isEmpty && value.utf8.count <= ActivityType.maxLength && wellFormedLabels
            #expect(((try? ActivityType(value)) != nil) == valid, "\(value)")
        }
    }
}

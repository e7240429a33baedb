import Foundation
import HandoffCore
import HandoffTestSupport
import Testing

/// The codes handoffd sends are one typed list, documented once: docs/CONTROL.md's "Failure
/// codes" names each with the meaning `FailureCode.all` gives it, and no code of its own.
@Suite struct FailureCodeTests {
    @Test func theDocumentedListIsTheTypedOne() throws {
        let doc = try String(contentsOf: TestHostSet.repositoryRoot.appendingPathComponent("docs/CONTROL.md"), encoding: .utf8)
        let section = try #require(doc.components(separatedBy: "## Failure codes").dropFirst().first?.components(separatedBy: "\n## ").first)
        var documented: [String: String] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            documented[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[1]
        }
        #expect(documented.count == FailureCode.all.count)
        for (code, meaning) in FailureCode.all {
            #expect(documented[code.rawValue] == meaning, "\(code) is not documented as \(meaning)")
        }
    }

    @Test func everyCodeIsListedOnceAndKnown() {
        let codes = FailureCode.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy(\.isKnown) && FailureCode.notFound.meaning != nil)
        // A code from another machine is carried as it came, and is not one of ours.
        let theirs = FailureCode("quota-exceeded")
        #expect(theirs.rawValue == "quota-exceeded" && !theirs.isKnown && theirs.meaning == nil)
    }
}

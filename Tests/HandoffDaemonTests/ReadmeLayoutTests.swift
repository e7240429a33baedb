import Foundation
import HandoffTestSupport
import Testing

/// The README's layout names every module folder and top-level folder, and links every document:
/// it listed 10 targets, 4 documents and a quarter of the scripts fewer than there were.
@Suite struct ReadmeLayoutTests {
    static let root = TestHostSet.repositoryRoot

    static func layout() throws -> String {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        return try #require(readme.components(separatedBy: "## Layout").last)
    }

    @Test func everyModuleFolderIsNamed() throws {
        let layout = try Self.layout()
        let words = Set(layout.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
        for folder in try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources").path) {
            #expect(words.contains(folder), "Sources/\(folder) is not in the README's Layout")
        }
        #expect(layout.contains(".ci/run"))
        // Every folder at the top and one level into the folders of roles, as a clone has them.
        let leftovers: Set<String> = [".build", "dist", "__pycache__"]
        func folders(_ path: String) throws -> [String] {
            let url = Self.root.appendingPathComponent(path)
            return try FileManager.default.contentsOfDirectory(atPath: url.path).filter { name in
                var isFolder: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isFolder)
                return exists && isFolder.boolValue && !name.hasPrefix(".") && !leftovers.contains(name)
            }
        }
        for folder in try folders("") {
            #expect(layout.contains("    \(folder)/"), "\(folder)/ is not in the README's Layout")
        }
        for parent in ["scripts", "Benchmarks"] {
            for folder in try folders(parent) {
                #expect(words.contains("\(folder)/"), "\(parent)/\(folder)/ is not in the README's Layout")
            }
        }
        #expect(words.contains("Rigs/"), "Tests/Rigs/ is not in the README's Layout")
    }

    @Test func everyDocumentIsLinked() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        for doc in try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path) where doc.hasSuffix(".md") {
            #expect(readme.contains("(docs/\(doc))"), "docs/\(doc) is not linked from the README")
        }
        #expect(readme.contains("(CONTRIBUTING.md)"))
        // A front door: the two commands first, and short.
        #expect(readme.split(separator: "\n").count <= 150)
        #expect(try #require(readme.range(of: "scripts/demo.sh")).lowerBound < (try #require(readme.range(of: "## What you get"))).lowerBound)
    }
}

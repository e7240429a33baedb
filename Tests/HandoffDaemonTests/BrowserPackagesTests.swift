import Foundation
import HandoffTestSupport
import Testing

/// The store packages browser/build-packages.py makes: every file of the extension, the manifest
/// without the `key` that pins the unpacked id, and the same bytes from the same tree.
@Suite struct BrowserPackagesTests {
    static let root = TestHostSet.repositoryRoot

    struct Contents: Decodable {
        let names: [String]
        let manifest: [String: JSONValue]
    }

    enum JSONValue: Decodable, Equatable {
        case text(String)
        case other
        init(from decoder: Decoder) throws {
            let value = try decoder.singleValueContainer()
            self = (try? value.decode(String.self)).map(JSONValue.text) ?? .other
        }
    }

    static func build(into folder: URL) throws -> [URL] {
        let script = root.appendingPathComponent("browser/build-packages.py").path
        let (status, output) = try runCommand(["/usr/bin/python3", script, "--out", folder.path])
        #expect(status == 0, "\(output)")
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static func contents(of archive: URL) throws -> Contents {
        let read =
            "import json, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); "
            + "print(json.dumps({'names': z.namelist(), 'manifest': json.loads(z.read('manifest.json'))}))"
        let (status, output) = try runCommand(["/usr/bin/python3", "-c", read, archive.path])
        #expect(status == 0, "\(output)")
        return try JSONDecoder().decode(Contents.self, from: Data(output.utf8))
    }

    @Test func bothStoresGetEveryFileAndNoKey() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let packages = try Self.build(into: folder)
        #expect(packages.map(\.pathExtension) == ["xpi", "zip"])
        let extensionFolder = Self.root.appendingPathComponent("browser/extension").path
        let sources = try FileManager.default.contentsOfDirectory(atPath: extensionFolder).sorted()
        let original =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: extensionFolder + "/manifest.json"))) as? [String: Any]
        for package in packages {
            let contents = try Self.contents(of: package)
            #expect(contents.names.sorted() == sources, "\(package.lastPathComponent)")
            #expect(contents.manifest["key"] == nil, "\(package.lastPathComponent) keeps the unpacked id's key")
            #expect(contents.manifest["version"] == .text(original?["version"] as? String ?? "?"))
            #expect(package.lastPathComponent.contains(original?["version"] as? String ?? "?"))
            #expect(contents.manifest["browser_specific_settings"] == .other)
        }
        #expect(original?["key"] != nil, "the unpacked extension pins its id with a key")
    }

    @Test func theSameTreeGivesTheSameBytes() throws {
        let first = try temporaryDirectory(), second = try temporaryDirectory()
        defer { for folder in [first, second] { try? FileManager.default.removeItem(at: folder) } }
        let once = try Self.build(into: first), again = try Self.build(into: second)
        #expect(once.count == 2 && once.count == again.count)
        for (a, b) in zip(once, again) {
            #expect(try Data(contentsOf: a) == Data(contentsOf: b), "\(a.lastPathComponent) differs between two builds")
        }
    }
}

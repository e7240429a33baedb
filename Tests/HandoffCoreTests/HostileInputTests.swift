import Foundation
import HandoffTestSupport
import Testing
@testable import HandoffCore

@Suite struct HostileInputTests {
    static let hostileFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hostile-plists")

    @Test func everyHostilePlistIsACleanError() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.hostileFolder.path)
            .filter { !$0.hasPrefix(".") }.sorted()
        #expect(files.count >= 5, "expected the hostile samples in \(Self.hostileFolder.path)")
        for name in files {
            let data = try Data(contentsOf: Self.hostileFolder.appendingPathComponent(name))
            #expect(throws: CodecError.self, "\(name)") { try BoundedDecoder().decode(data) }
            #expect(throws: CodecError.self, "\(name)") { try UserActivity(decoding: data) }
        }
    }

    @Test func randomCorruptionNeverCrashes() throws {
        // A fixed seed keeps the run repeatable; 5,000 mutants of a rich activity.
        var rng = SplitMix64(seed: 0x5EED)
        var a = UserActivity(type: makeType(), title: "fuzz")
        try a.setUserInfo(["a": [1, "two", ["three": .data(Data([3]))]], "d": .date(Date()), "r": 1.5])
        let original = [UInt8](try a.encoded())
        var decoded = 0
        for _ in 0..<5_000 {
            var bytes = original
            for _ in 0..<Int(rng.next() % 4 + 1) {
                let i = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: rng.next())
                case 1: bytes.remove(at: i)
                default: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: i)
                }
                if bytes.isEmpty { break }
            }
            do {
                _ = try UserActivity(decoding: Data(bytes))
                decoded += 1
            } catch {
                // The initializer's typed throws guarantees a CodecError; reaching here is the check
                // that the decoder refused instead of crashing or hanging.
            }
        }
        #expect(decoded < 5_000)
    }

    @Test func sourcesNeverUseFoundationPlistParsers() throws {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        var checked = 0
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            checked += 1
            for banned in ["PropertyListDecoder", "PropertyListSerialization"] {
                #expect(!text.contains(banned), "\(url.lastPathComponent) uses \(banned)")
            }
        }
        #expect(checked > 10)
    }
}

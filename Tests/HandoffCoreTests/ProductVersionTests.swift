import Foundation
import HandoffCore
import Testing

/// `--version` says the package's version: the binaries carry it as a constant, and this keeps the
/// constant and packaging/VERSION (what the .deb is named and stamped with) the same.
@Suite struct ProductVersionTests {
    @Test func theBinariesVersionIsThePackages() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let packaged = try String(contentsOf: root.appendingPathComponent("packaging/VERSION"), encoding: .utf8)
        #expect(ProductVersion.current == packaged.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

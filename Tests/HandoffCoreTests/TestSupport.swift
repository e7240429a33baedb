import Foundation
import HandoffCore

/// The repository's top folder, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func makeType(_ s: String = "org.hawknotes.test") -> ActivityType { try! ActivityType(s) }

/// Nests `value` inside `levels` arrays.
func nested(_ levels: Int, around value: PropertyListValue = .integer(1)) -> PropertyListValue {
    (0..<levels).reduce(value) { v, _ in .array([v]) }
}

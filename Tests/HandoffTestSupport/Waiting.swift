import Foundation

public struct TimedOut: Error, CustomStringConvertible {
    public let what: String
    public init(what: String) { self.what = what }
    public var description: String { "timed out waiting: \(what)" }
}

/// Waits for a condition with a deadline; the pause between checks stands in for nothing. Returns
/// the seconds it took.
@discardableResult
public func waitUntil(_ what: String, timeout: Double, _ condition: () async throws -> Bool) async throws -> Double {
    let start = Date()
    while true {
        if try await condition() { return Date().timeIntervalSince(start) }
        if Date().timeIntervalSince(start) > timeout { throw TimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(25))
    }
}

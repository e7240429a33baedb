import Foundation
import FuzzSupport
import HandoffControl
import HandoffCore

/// A line as a local client sends it: refused with a typed error, or a request that writes back
/// to a line that reads to the same request; any JSON value read writes and reads back equal.
func fuzzControlLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let line = Array(UnsafeBufferPointer(start: data, count: size))
    if let value = try? JSONValue.parse(line) {
        guard let back = try? JSONValue.parse(JSONWriter.encode(value)), back == value else {
            fatalError("a JSON value does not round-trip: \(value)")
        }
    }
    guard let request = try? ControlRequest(line: line) else { return 0 }
    guard let again = try? ControlRequest(line: Array(request.line.dropLast())), again == request else {
        fatalError("a request does not round-trip")
    }
    return 0
}

runFuzzer { data, size in fuzzControlLine(data, size) }

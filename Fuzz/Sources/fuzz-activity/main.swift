import Foundation
import FuzzSupport
import HandoffCore

/// Bytes as a peer sends an activity: the bounded decoder either refuses them or gives an activity
/// whose canonical encoding is exactly those bytes (one value, one encoding) and reads back equal.
func fuzzActivity(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Data(bytes: data, count: size)
    if let value = try? BoundedDecoder().decode(bytes) {
        guard let again = try? CanonicalEncoder().encode(value), again == bytes else { fatalError("a decoded value does not re-encode to its bytes") }
    }
    guard let activity = try? UserActivity(decoding: bytes) else { return 0 }
    guard let encoded = try? activity.encoded(), let back = try? UserActivity(decoding: encoded), back == activity else {
        fatalError("a decoded activity does not round-trip")
    }
    return 0
}

runFuzzer { data, size in fuzzActivity(data, size) }

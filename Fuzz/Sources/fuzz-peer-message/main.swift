import Foundation
import FuzzSupport
import HandoffCore
import HandoffProtocol

/// Bytes as a paired peer sends a message: refused with a typed error, or a message that encodes
/// back and decodes to itself.
func fuzzPeerMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = try? PeerMessage(decoding: bytes) else { return 0 }
    guard let encoded = try? message.encoded() else { fatalError("a decoded message cannot be encoded: \(message)") }
    guard let back = try? PeerMessage(decoding: encoded), back == message else { fatalError("a decoded message does not round-trip") }
    return 0
}

runFuzzer { data, size in fuzzPeerMessage(data, size) }

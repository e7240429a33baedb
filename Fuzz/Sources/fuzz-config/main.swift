import Foundation
import FuzzSupport
import HandoffConfig

/// A configuration file as a user (or a package upgrade) writes it: refused with the key and the
/// reason, or a configuration whose limits hold together; loading is deterministic.
func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    guard size <= 16_384, let text = String(validating: UnsafeBufferPointer(start: data, count: size), as: UTF8.self) else { return 0 }
    let first: HandoffConfiguration
    do { first = try HandoffConfiguration(yaml: text) } catch {
        guard !error.description.isEmpty else { fatalError("an error without a message") }
        return 0
    }
    guard first.link.maxFrameBytes <= 65_535, first.sizePolicy.hardLimit > 0, first.sizePolicy.hardLimit <= first.codecLimits.maxBytes,
        first.sizePolicy.hardLimit <= first.link.maxFrameBytes - 81
    else {
        fatalError("a loaded configuration breaks its own limits")
    }
    guard let second = try? HandoffConfiguration(yaml: text), second.deviceName == first.deviceName,
        second.sizePolicy == first.sizePolicy, second.codecLimits == first.codecLimits
    else {
        fatalError("loading is not deterministic")
    }
    return 0
}

runFuzzer { data, size in fuzzConfig(data, size) }

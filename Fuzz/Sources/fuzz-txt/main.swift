import Foundation
import FuzzSupport
import HandoffAdvert
import HandoffDiscovery

/// A TXT record as a stranger on the LAN publishes it (DNS rdata: length-prefixed strings): it
/// parses, its format is checked and a private advert is tried against a paired key without a
/// crash (what opens holds at most four tokens), and a record that passes our own checks writes
/// back to strings that parse to the same record.
let key = AdvertisingKey(generation: 1, key: Array(repeating: 7, count: 32))
let recogniser = PrivateAdvert.Recogniser(keys: [(peerID: "p", key: key)])

func fuzzTXT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var strings: [[UInt8]] = []
    var i = 0
    while i < bytes.count {
        let n = Int(bytes[i])
        i += 1
        strings.append(Array(bytes[i..<min(bytes.count, i + n)]))
        i += n
    }
    let txt = TXTRecord(received: strings)
    _ = HandoffTXT.foreignReason(txt)
    if let found = recogniser.recognise(txt), found.contents.tokens.count > 4 { fatalError("more tokens than an advert carries") }
    if let checked = try? TXTRecord(txt.entries) {
        let wire = checked.entries.map { e in Array(e.key.utf8) + (e.value.map { [0x3D] + $0 } ?? []) }
        guard TXTRecord(received: wire) == checked else { fatalError("a checked record does not round-trip") }
    }
    return 0
}

runFuzzer { data, size in fuzzTXT(data, size) }

import HandoffAdvert
/// Every session message starts with one byte saying whose it is: the application's (the peer
/// protocol), the link's own control messages, which never reach the application, or a frame of
/// a continuation stream (handed to the stream sink on the event loop, never queued).
public enum MessageKind: UInt8, Sendable {
    case application = 0x00
    case control = 0x01
    case stream = 0x02
}

/// The link's control messages.
enum LinkControl: Equatable {
    /// The sender's current advertising key: lets us read its TXT tokens.
    case advertisingKey(AdvertisingKey)
    /// The sender has removed us from its trust store.
    case unpaired

    var bytes: [UInt8] {
        switch self {
        case .advertisingKey(let k):
            return [MessageKind.control.rawValue, 0x01] + withUnsafeBytes(of: k.generation.bigEndian) { Array($0) } + k.key
        case .unpaired:
            return [MessageKind.control.rawValue, 0x02]
        }
    }

    /// Parses the body after the kind byte; nil for anything malformed or unknown.
    init?(body: ArraySlice<UInt8>) {
        guard let type = body.first else { return nil }
        let rest = Array(body.dropFirst())
        switch type {
        case 0x01 where rest.count == 36:
            let generation = rest.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            self = .advertisingKey(AdvertisingKey(generation: generation, key: Array(rest.suffix(32))))
        case 0x02 where rest.isEmpty:
            self = .unpaired
        default:
            return nil
        }
    }
}

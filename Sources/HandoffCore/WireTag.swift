/// Tags of the canonical encoding. The layout is described in docs/ENCODING.md.
enum WireTag: UInt8 {
    case string = 0x01
    case integer = 0x02
    case real = 0x03
    case boolFalse = 0x04
    case boolTrue = 0x05
    case date = 0x06
    case data = 0x07
    case array = 0x08
    case dictionary = 0x09
}

enum WireFormat {
    /// "HO" then the format version; anything else (an Apple bplist, XML) is refused at byte 0.
    static let magic: [UInt8] = [0x48, 0x4F]
    static let version: UInt8 = 1
}

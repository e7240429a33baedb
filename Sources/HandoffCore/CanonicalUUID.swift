#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension UUID {
    /// Only the one spelling `uuidString` writes (36 characters, upper-case hex, dashes after the
    /// 8th, 12th, 16th and 20th digit): Foundation also takes lower and mixed case, which gave one
    /// id many spellings on the wire. Read here digit by digit: Foundation's parser is `sscanf`,
    /// and checking the spelling meant writing it again with `snprintf`, together about 2 % of
    /// the daemon's CPU at load (docs/PERFORMANCE.md).
    public init?(canonical text: String) {
        var text = text
        guard let uuid = text.withUTF8({ Self.canonicalBytes($0) }) else { return nil }
        self.init(uuid: uuid)
    }

    private static func canonicalBytes(_ text: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        guard text.count == 36 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        var i = 0
        for n in 0..<16 {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard text[i] == 0x2D else { return nil }
                i += 1
            }
            guard let high = hexDigit(text[i]), let low = hexDigit(text[i + 1]) else { return nil }
            bytes[n] = high << 4 | low
            i += 2
        }
        return (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        )
    }

    /// 0-9 and upper-case A-F only.
    private static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }

    /// The canonical spelling (as `uuidString`), written here: Foundation's on Linux formats it
    /// with `snprintf`, which showed in a push's profile on both daemons (the activity's id, the
    /// handler's token).
    public var canonicalString: String {
        let digits: StaticString = "0123456789ABCDEF"
        return withUnsafeBytes(of: uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { out in
                digits.withUTF8Buffer { hex in
                    var i = 0
                    for (n, byte) in raw.enumerated() {
                        if n == 4 || n == 6 || n == 8 || n == 10 {
                            out[i] = 0x2D
                            i += 1
                        }
                        out[i] = hex[Int(byte >> 4)]
                        out[i + 1] = hex[Int(byte & 0x0F)]
                        i += 2
                    }
                    return i
                }
            }
        }
    }
}

/// Why bytes were refused by the bounded decoder (or a value by the encoder).
///
/// Every case is a clean refusal: the decoder never allocates more than the input's size and
/// never recurses deeper than its depth limit before throwing one of these.
public enum CodecError: Error, Sendable, Equatable, CustomStringConvertible {
    case badMagic
    case unsupportedFormatVersion(UInt8)
    case inputTooLarge(size: Int, limit: Int)
    case truncated(offset: Int)
    case depthExceeded(limit: Int)
    case tooManyValues(limit: Int)
    case unknownTag(UInt8, offset: Int)
    case invalidUTF8(offset: Int)
    case nonCanonical(String, offset: Int)
    case trailingBytes(count: Int)
    case field(String, problem: String)

    public var description: String {
        switch self {
        case .badMagic:
            "not a handoff encoding (wrong magic bytes); property lists from other programs are not accepted"
        case .unsupportedFormatVersion(let v):
            "encoding format version \(v) is not supported; upgrade handoffd on the older machine"
        case .inputTooLarge(let size, let limit):
            "input of \(size) bytes exceeds the limit of \(limit) bytes"
        case .truncated(let offset):
            "input ends early at byte \(offset)"
        case .depthExceeded(let limit):
            "values are nested deeper than the limit of \(limit)"
        case .tooManyValues(let limit):
            "input holds more than the limit of \(limit) values"
        case .unknownTag(let tag, let offset):
            "unknown value tag 0x\(String(tag, radix: 16)) at byte \(offset)"
        case .invalidUTF8(let offset):
            "string at byte \(offset) is not valid UTF-8"
        case .nonCanonical(let what, let offset):
            "non-canonical encoding at byte \(offset): \(what)"
        case .trailingBytes(let count):
            "\(count) unexpected bytes after the value"
        case .field(let name, let problem):
            "field '\(name)': \(problem)"
        }
    }
}

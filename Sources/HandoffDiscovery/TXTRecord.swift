/// A DNS-SD TXT record as a list of `key=value` strings, checked before Avahi sees it: Avahi
/// refuses a string over 255 bytes, and silently does not send a record over about 1,400 bytes.
public struct TXTRecord: Sendable, Equatable, CustomStringConvertible {
    public static let maxStringBytes = 255
    public static let maxKeyLength = 9
    public static let maxRecordBytes = 400

    public struct Entry: Sendable, Equatable {
        public let key: String
        /// nil for a key without '=' (a boolean attribute in DNS-SD terms).
        public let value: [UInt8]?

        public init(_ key: String, _ value: [UInt8]?) {
            self.key = key
            self.value = value
        }
        public init(_ key: String, _ value: String) { self.init(key, Array(value.utf8)) }

        var wireBytes: [UInt8] { Array(key.utf8) + (value.map { [0x3D] + $0 } ?? []) }
    }

    public private(set) var entries: [Entry]

    /// A checked record: keys of 1-9 printable ASCII characters without '=', unique (ignoring
    /// case), each string at most 255 bytes, the whole record at most 400 bytes.
    public init(_ entries: [Entry]) throws(TXTError) {
        var seen = Set<String>()
        for e in entries {
            if e.key.isEmpty { throw .emptyKey }
            if e.key.utf8.count > Self.maxKeyLength { throw .keyTooLong(e.key) }
            if !e.key.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E && $0 != 0x3D }) { throw .invalidKey(e.key) }
            if !seen.insert(e.key.lowercased()).inserted { throw .duplicateKey(e.key) }
            let size = e.wireBytes.count
            if size > Self.maxStringBytes { throw .stringTooLong(key: e.key, bytes: size) }
        }
        let total = entries.reduce(0) { $0 + 1 + $1.wireBytes.count }
        if total > Self.maxRecordBytes { throw .recordTooLarge(bytes: total, limit: Self.maxRecordBytes) }
        self.entries = entries
    }

    public init(_ pairs: KeyValuePairs<String, String>) throws(TXTError) {
        try self.init(pairs.map { Entry($0.key, $0.value) })
    }

    /// Parses received strings without the size checks (a peer's record is what it is); a string
    /// without a key, or a repeated key, is dropped as RFC 6763 section 6.4 says.
    public init(received strings: [[UInt8]]) {
        var seen = Set<String>()
        var out: [Entry] = []
        for s in strings {
            let eq = s.firstIndex(of: 0x3D)
            let keyBytes = eq.map { Array(s[..<$0]) } ?? s
            guard !keyBytes.isEmpty, let key = String(validating: keyBytes, as: UTF8.self) else { continue }
            guard seen.insert(key.lowercased()).inserted else { continue }
            out.append(Entry(key, eq.map { Array(s[s.index(after: $0)...]) }))
        }
        entries = out
    }

    public static let empty = try! TXTRecord([Entry]())

    /// The value of `key` as UTF-8 text (keys compare without case, as in DNS-SD).
    public subscript(key: String) -> String? {
        guard let e = entries.first(where: { $0.key.lowercased() == key.lowercased() }), let v = e.value else { return nil }
        return String(validating: v, as: UTF8.self)
    }

    public func contains(key: String) -> Bool { entries.contains { $0.key.lowercased() == key.lowercased() } }

    /// The strings as they go on the wire, in order.
    public var strings: [[UInt8]] { entries.map(\.wireBytes) }

    public var byteCount: Int { entries.reduce(0) { $0 + 1 + $1.wireBytes.count } }

    public var description: String {
        entries.map { e in e.value.map { "\(e.key)=\(String(decoding: $0, as: UTF8.self))" } ?? e.key }.joined(separator: " ")
    }
}

public enum TXTError: Error, Sendable, Equatable, CustomStringConvertible {
    case emptyKey
    case keyTooLong(String)
    case invalidKey(String)
    case duplicateKey(String)
    case reservedKey(String)
    case stringTooLong(key: String, bytes: Int)
    case recordTooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .emptyKey: "a TXT key is empty"
        case .keyTooLong(let k): "TXT key '\(k)' is longer than \(TXTRecord.maxKeyLength) characters"
        case .invalidKey(let k): "TXT key '\(k)' must be printable ASCII without '='"
        case .duplicateKey(let k): "TXT key '\(k)' appears twice"
        case .reservedKey(let k): "TXT key '\(k)' is set by the discovery layer itself"
        case .stringTooLong(let k, let n): "TXT entry '\(k)' is \(n) bytes; at most \(TXTRecord.maxStringBytes) fit in one string"
        case .recordTooLarge(let n, let limit):
            "the TXT record would be \(n) bytes, above our limit of \(limit); advertise less and send the rest over the link"
        }
    }
}

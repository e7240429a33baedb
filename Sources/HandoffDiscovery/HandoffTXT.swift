/// The keys the discovery layer itself owns in every handoffd TXT record.
public enum HandoffTXT {
    public static let versionKey = "txtvers"
    public static let sequenceKey = "seq"
    public static let version = "1"
    public static let reservedKeys: Set<String> = [versionKey, sequenceKey]

    /// The record as published: our keys first, then the caller's entries.
    public static func compose(_ caller: TXTRecord, sequence: UInt64) throws(TXTError) -> TXTRecord {
        for e in caller.entries where reservedKeys.contains(e.key.lowercased()) { throw .reservedKey(e.key) }
        return try TXTRecord([TXTRecord.Entry(versionKey, version), TXTRecord.Entry(sequenceKey, String(sequence))] + caller.entries)
    }

    /// The sequence number of a received handoffd record, or why it is not one.
    public static func sequence(of txt: TXTRecord) -> Result<UInt64, ForeignReason> {
        guard let v = txt[versionKey] else { return .failure(ForeignReason("no \(versionKey)")) }
        guard v == version else { return .failure(ForeignReason("\(versionKey)=\(v) is not \(version)")) }
        guard let s = txt[sequenceKey], let n = UInt64(s) else { return .failure(ForeignReason("no numeric \(sequenceKey)")) }
        return .success(n)
    }

    public struct ForeignReason: Error, Sendable, Equatable {
        public let text: String
        init(_ text: String) { self.text = text }
    }
}

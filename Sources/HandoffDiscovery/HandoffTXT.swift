/// The one key the discovery layer itself owns in every handoffd TXT record: the format version.
/// Nothing else is in the clear: no sequence, no clock. Which of two coexisting
/// records is newer is for the layer above to tell, from what is sealed inside them.
public enum HandoffTXT {
    public static let versionKey = "v"
    public static let version = "2"
    public static let reservedKeys: Set<String> = [versionKey]

    /// The record as published: the version first, then the caller's entries.
    public static func compose(_ caller: TXTRecord) throws(TXTError) -> TXTRecord {
        for e in caller.entries where reservedKeys.contains(e.key.lowercased()) { throw .reservedKey(e.key) }
        return try TXTRecord([TXTRecord.Entry(versionKey, version)] + caller.entries)
    }

    /// Why a received record is not a handoffd record of this format, or nil if it is one.
    public static func foreignReason(_ txt: TXTRecord) -> ForeignReason? {
        guard let v = txt[versionKey] else { return ForeignReason("no \(versionKey)") }
        guard v == version else { return ForeignReason("\(versionKey)=\(v) is not \(version)") }
        return nil
    }

    public struct ForeignReason: Error, Sendable, Equatable {
        public let text: String
        init(_ text: String) { self.text = text }
    }
}

extension String {
    /// `bytes` as a string if they are valid UTF-8, else nil. ASCII, which is every key and most
    /// values the daemon reads, is checked by a loop and copied once; anything else goes to the
    /// standard library's `String(validating:as:)`, whose generic entry point, unspecialised,
    /// was most of turning bytes into strings on a push's path (docs/PERFORMANCE.md).
    public init?(validUTF8 buffer: UnsafeBufferPointer<UInt8>) {
        if buffer.allSatisfy({ $0 < 0x80 }) {
            self = String(decoding: buffer, as: UTF8.self)
            return
        }
        guard let text = String(validating: buffer, as: UTF8.self) else { return nil }
        self = text
    }

    /// The same for an array's slice.
    public init?(validUTF8 bytes: ArraySlice<UInt8>) {
        guard let text = bytes.withUnsafeBufferPointer({ String(validUTF8: $0) }) else { return nil }
        self = text
    }
}

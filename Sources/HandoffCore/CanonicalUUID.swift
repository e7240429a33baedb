#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension UUID {
    /// Only the one spelling `uuidString` writes (36 characters, upper-case hex): Foundation also
    /// takes lower and mixed case, which gave one id many spellings on the wire.
    public init?(canonical text: String) {
        guard text.utf8.count == 36, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || $0 == 0x2D }),
            let u = UUID(uuidString: text), u.uuidString == text
        else { return nil }
        self = u
    }
}

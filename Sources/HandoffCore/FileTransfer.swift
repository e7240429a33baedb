#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The activity `handoffctl send-file` pushes (docs/STREAMS.md): its title and `name` the file's
/// name, `size` its length; its continuation stream carries the bytes. Declared by default, so
/// that any machine can receive files (with `handoffctl receive` running).
public enum FileTransfer {
    public static let type = try! ActivityType("org.handoffd.file")
    public static let declaration = ActivityTypeDeclaration(type: type, requiredKeys: ["name", "size"])
    public static let maxNameBytes = 255

    /// The name to save a received file under: a plain file name (no directory, no `..`, no
    /// control characters, not hidden, not starting as a command's option or a shell's home
    /// directory does: `-rf`, `~root`), or nil when the sender's name is not one.
    public static func safeName(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= maxNameBytes, name != ".", name != "..", !name.hasPrefix("."),
            !name.hasPrefix("-"), !name.hasPrefix("~"),
            !name.contains("/"), !name.contains("\0"),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
        else { return nil }
        return name
    }
}

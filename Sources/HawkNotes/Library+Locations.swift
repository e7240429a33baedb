#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Library {
    /// Where the shipped library is looked for when none is named: installed, installed beside
    /// the binary (a `DESTDIR` or `/usr/local` install), and in the source tree above a build
    /// (`.build/<triple>/debug`, and `.build/dist/<triple>/release` from build-release.sh, one
    /// level deeper: handoffd missed that one).
    public static func candidates(besideBinaryIn directory: URL) -> [String] {
        [
            "/usr/share/handoffd/library.json",
            directory.appendingPathComponent("../share/handoffd/library.json").standardized.path,
            directory.appendingPathComponent("../../../config/library.json").standardized.path,
            directory.appendingPathComponent("../../../../config/library.json").standardized.path
        ]
    }

    /// The directory of the running binary (/proc/self/exe, not argv[0], which may be a bare name
    /// found on PATH or missing altogether).
    public static var binaryDirectory: URL {
        let binary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? "."
        return URL(fileURLWithPath: binary).resolvingSymlinksInPath().deletingLastPathComponent()
    }
}

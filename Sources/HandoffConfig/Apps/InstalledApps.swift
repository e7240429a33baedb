#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Glibc
import HandoffCore

/// The apps declared in the app directories (docs/APPS.md, "Declaring an app"), read at start and
/// again when a file there changes. The per-user directory comes first, then each system one
/// (`$XDG_DATA_HOME/handoffd/apps`, then each of `$XDG_DATA_DIRS/handoffd/apps`); a file name
/// found twice is the first one's, as with .desktop files.
public struct InstalledApps: Sendable, Equatable {
    public var apps: [AppDeclaration] = []
    public var problems: [AppFileProblem] = []

    /// Files read at most: each costs a read at every change.
    public static let maxFiles = 256
    public static let suffix = ".app"

    public init(apps: [AppDeclaration] = [], problems: [AppFileProblem] = []) { (self.apps, self.problems) = (apps, problems) }

    /// `$XDG_DATA_HOME/handoffd/apps` (`~/.local/share` when unset), then each of
    /// `$XDG_DATA_DIRS` (`/usr/local/share:/usr/share` when unset).
    public static func defaultDirectories(environment: [String: String]) -> [String] {
        var bases: [String] = []
        if let home = environment["XDG_DATA_HOME"], home.hasPrefix("/") {
            bases.append(home)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            bases.append(home + "/.local/share")
        }
        let system = (environment["XDG_DATA_DIRS"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        bases += system.isEmpty ? ["/usr/local/share", "/usr/share"] : system
        return bases.map { $0 + "/handoffd/apps" }
    }

    /// The app files of `directories`, each file read once, in precedence order.
    static func files(in directories: [String]) -> [(id: String, path: String)] {
        var seen = Set<String>(), found: [(id: String, path: String)] = []
        for directory in directories {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(suffix) }.sorted()
            for name in names where seen.insert(name).inserted && found.count < maxFiles {
                found.append((String(name.dropLast(suffix.count)), directory + "/" + name))
            }
        }
        return found
    }

    /// Reads every app file; a type declared by an earlier app (or built in) is refused in a later one.
    public static func load(from directories: [String], builtIn: [ActivityTypeDeclaration]) -> InstalledApps {
        var installed = InstalledApps()
        var owners: [ActivityType: String] = Dictionary(uniqueKeysWithValues: builtIn.map { ($0.type, "handoffd itself") })
        for (id, path) in files(in: directories) {
            guard let text = read(path) else {
                installed.problems.append(AppFileProblem(file: path, line: 0, message: "cannot be read, or is larger than \(AppFile.maxBytes) bytes"))
                continue
            }
            switch AppFile.parse(text, id: id, file: path) {
            case .failure(let errors): installed.problems += errors.problems
            case .success(let app):
                var types: [ActivityTypeDeclaration] = []
                for t in app.types {
                    if let owner = owners[t.type] {
                        installed.problems.append(
                            AppFileProblem(
                                file: path, line: 0,
                                message: "\(t.type.rawValue) is declared by \(owner) already; this app's declaration of it is not used"))
                    } else {
                        owners[t.type] = app.name
                        types.append(t)
                    }
                }
                installed.apps.append(AppDeclaration(id: app.id, name: app.name, file: app.file, types: types, launch: app.launch))
            }
        }
        return installed
    }

    static func read(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= AppFile.maxBytes,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// What changes when a file is added, removed, replaced or written: the loader reads again.
    public static func signature(of directories: [String]) -> [String] {
        var parts: [String] = []
        for directory in directories {
            var info = stat()
            guard stat(directory, &info) == 0 else { continue }
            parts.append("\(directory) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)")
            for (_, path) in files(in: [directory]) where stat(path, &info) == 0 {
                parts.append("\(path) \(info.st_ino) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)")
            }
        }
        return parts
    }

    /// The built-in types, the apps', then the configuration's local additions.
    public func declaredTypes(builtIn: [ActivityTypeDeclaration], local: [ActivityTypeDeclaration]) -> DeclaredActivityTypes {
        let base = (try? DeclaredActivityTypes(builtIn + apps.flatMap(\.types))) ?? (try! DeclaredActivityTypes(builtIn))
        return (try? base.adding(local)) ?? base
    }

    /// The app that declares `type`, if one does.
    public func app(declaring type: ActivityType) -> AppDeclaration? { apps.first { $0.types.contains { $0.type == type } } }
}

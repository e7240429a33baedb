import HandoffCore

/// Reads an app's declaration file, a key file as .desktop files are:
///
///     [Handoff App]
///     Name=Reading List
///     Exec=/usr/bin/reading-list --continue
///
///     [Activity org.example.reading.item]
///     RequiredKeys=url;title
///     Search=true
///
/// Every problem is reported with its line; a file with any is not used.
public enum AppFile {
    /// Bounds on what one file may hold: it is read at every start and change.
    public static let maxBytes = 65_536
    public static let maxTypes = 64
    static let maxNameBytes = 128
    static let appGroup = "Handoff App"
    static let activityPrefix = "Activity "

    public static func parse(_ text: String, id: String, file: String) -> Result<AppDeclaration, AppFileErrors> {
        var reader = Reader(file: file)
        if text.utf8.count > maxBytes { reader.fail(0, "is larger than \(maxBytes) bytes") }
        if let problem = idProblem(id) { reader.fail(0, problem) }
        reader.read(text)
        return reader.finish(id: id)
    }

    /// An app's id is its file's name: reverse-DNS, as activity types are.
    static func idProblem(_ id: String) -> String? {
        do throws(ActivityError) { _ = try ActivityType(id) } catch {
            return "the file's name (\(id).app) must be a reverse-DNS id such as org.example.ReadingList.app"
        }
        return nil
    }
}

/// The problems of one file, in line order.
public struct AppFileErrors: Error, Sendable, Equatable {
    public let problems: [AppFileProblem]
}

/// One pass over the lines: groups, then `Key=Value` entries of the group above them.
private struct Reader {
    let file: String
    var problems: [AppFileProblem] = []
    var name: String?
    var launch: AppLaunch?
    var types: [ActivityTypeDeclaration] = []
    var sawApp = false
    /// The group being read: the app's, an activity type's (with what it has so far), or none.
    var group: Group = .none

    enum Group {
        case none
        case app
        case activity(ActivityType, line: Int, Fields)
        case skipped
    }

    struct Fields {
        var requiredKeys: Set<String> = []
        var payload: String?
        var search = true
        var streams = true
    }

    init(file: String) { self.file = file }

    mutating func fail(_ line: Int, _ message: String) { problems.append(AppFileProblem(file: file, line: line, message: message)) }

    mutating func read(_ text: String) {
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let n = index + 1
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                closeGroup()
                openGroup(line, at: n)
                continue
            }
            guard let eq = line.firstIndex(of: "=") else {
                fail(n, "'\(line)' is neither [Group] nor Key=Value")
                continue
            }
            let key = line[..<eq].trimmingWhitespace(), value = line[line.index(after: eq)...].trimmingWhitespace()
            entry(key, value, at: n)
        }
        closeGroup()
    }

    mutating func openGroup(_ line: String, at n: Int) {
        guard line.hasSuffix("]") else { return fail(n, "a group's line must end with ]") }
        let title = String(line.dropFirst().dropLast())
        if title == AppFile.appGroup {
            if sawApp { fail(n, "[\(AppFile.appGroup)] is given twice") }
            sawApp = true
            group = .app
        } else if title.hasPrefix(AppFile.activityPrefix) {
            let raw = String(title.dropFirst(AppFile.activityPrefix.count))
            do throws(ActivityError) {
                let type = try ActivityType(raw)
                if types.contains(where: { $0.type == type }) { fail(n, "[Activity \(raw)] is given twice") }
                if types.count >= AppFile.maxTypes { fail(n, "more than \(AppFile.maxTypes) activity types") }
                group = .activity(type, line: n, Fields())
            } catch {
                fail(n, error.description)
                group = .skipped
            }
        } else {
            fail(n, "unknown group [\(title)]; use [\(AppFile.appGroup)] or [Activity TYPE]")
            group = .skipped
        }
    }

    mutating func closeGroup() {
        if case .activity(let type, _, let f) = group {
            types.append(ActivityTypeDeclaration(type: type, requiredKeys: f.requiredKeys, payload: f.payload, search: f.search, streams: f.streams))
        }
        group = .none
    }

    mutating func entry(_ key: String, _ value: String, at n: Int) {
        switch group {
        case .none: fail(n, "\(key)= comes before any group; start with [\(AppFile.appGroup)]")
        case .skipped: return
        case .app: appEntry(key, value, at: n)
        case .activity(let type, let line, var fields):
            activityEntry(key, value, into: &fields, at: n)
            group = .activity(type, line: line, fields)
        }
    }

    mutating func appEntry(_ key: String, _ value: String, at n: Int) {
        switch key {
        case "Name":
            if value.isEmpty || value.utf8.count > AppFile.maxNameBytes
                || value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                return fail(n, "Name= must be 1 to \(AppFile.maxNameBytes) bytes of text")
            }
            name = value
        case "Exec":
            guard launch == nil else { return fail(n, "give one of Exec= and DBusActivatable=") }
            let argv = CommandLineWords.split(value)
            guard let first = argv.first else { return fail(n, "Exec= is empty") }
            guard first.hasPrefix("/") || !first.contains("/") else {
                return fail(n, "Exec='s program is an absolute path or a name looked up in PATH")
            }
            launch = .command(argv)
        case "DBusActivatable":
            guard launch == nil else { return fail(n, "give one of Exec= and DBusActivatable=") }
            guard BusNameRule.isWellKnownName(value) else {
                return fail(n, "DBusActivatable= must be a well-known bus name such as org.example.ReadingList")
            }
            launch = .busName(value)
        default: fail(n, "unknown key \(key)= in [\(AppFile.appGroup)] (Name, Exec, DBusActivatable)")
        }
    }

    mutating func activityEntry(_ key: String, _ value: String, into f: inout Fields, at n: Int) {
        switch key {
        case "RequiredKeys": f.requiredKeys = Set(value.split(separator: ";").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty })
        case "Payload": f.payload = value.isEmpty ? nil : value
        case "Search", "Streams":
            guard let flag = ["true": true, "false": false][value] else { return fail(n, "\(key)= is true or false") }
            if key == "Search" { f.search = flag } else { f.streams = flag }
        default: fail(n, "unknown key \(key)= in an [Activity] group (RequiredKeys, Payload, Search, Streams)")
        }
    }

    func finish(id: String) -> Result<AppDeclaration, AppFileErrors> {
        var problems = problems
        if !sawApp { problems.append(AppFileProblem(file: file, line: 0, message: "has no [\(AppFile.appGroup)] group")) }
        if sawApp, name == nil { problems.append(AppFileProblem(file: file, line: 0, message: "[\(AppFile.appGroup)] has no Name=")) }
        if sawApp, types.isEmpty, problems.isEmpty {
            problems.append(AppFileProblem(file: file, line: 0, message: "declares no activity type; add an [Activity TYPE] group"))
        }
        guard problems.isEmpty, let name else { return .failure(AppFileErrors(problems: problems.sorted { $0.line < $1.line })) }
        return .success(AppDeclaration(id: id, name: name, file: file, types: types, launch: launch))
    }
}

/// Exec= split as the Desktop Entry spec's Exec key is: on spaces, with "double quotes" (and \"
/// inside them) keeping a word whole. No shell runs it.
enum CommandLineWords {
    static func split(_ text: String) -> [String] {
        var words: [String] = [], word = "", quoted = false, escaped = false, started = false
        for c in text {
            if escaped {
                word.append(c)
                escaped = false
            } else if quoted, c == "\\" {
                escaped = true
            } else if c == "\"" {
                quoted.toggle()
                started = true
            } else if c == " " || c == "\t", !quoted {
                if started { words.append(word) }
                (word, started) = ("", false)
            } else {
                word.append(c)
                started = true
            }
        }
        if started { words.append(word) }
        return words
    }
}

/// A D-Bus well-known name: two or more dot-separated elements of [A-Za-z0-9_-], none starting
/// with a digit, at most 255 bytes.
enum BusNameRule {
    static func isWellKnownName(_ name: String) -> Bool {
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= 255, elements.count >= 2 else { return false }
        return elements.allSatisfy { e in
            guard let first = e.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            return e.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
        }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let scalars = Array(String(self).unicodeScalars)
        guard let start = scalars.firstIndex(where: { $0 != " " && $0 != "\t" && $0 != "\r" }),
            let end = scalars.lastIndex(where: { $0 != " " && $0 != "\t" && $0 != "\r" })
        else { return "" }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[start...end])
        return String(out)
    }
}

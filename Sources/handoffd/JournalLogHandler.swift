#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif
import HandoffCore
import Logging

/// Log lines for journald, when systemd connected our stderr to it (`JOURNAL_STREAM`, sd-daemon(3)):
/// each line starts with its syslog priority as `<N>`, so that `journalctl -p err` finds errors,
/// and carries no timestamp of its own (the journal has one).
struct JournalLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, level: Logger.Level) {
        self.label = label
        logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// One line: `<N>message key=value ...`, newlines in the message folded so one event stays one line.
    static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var text = "<\(priority(level))>" + Self.oneLine(message)
        for (k, v) in metadata.sorted(by: { $0.key < $1.key }) { text += " \(k)=\(Self.oneLine("\(v)"))" }
        return text + "\n"
    }

    private static func oneLine(_ text: String) -> String { String(text.map { $0 == "\n" ? " " : $0 }) }

    func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let explicit = event.metadata { all.merge(explicit) { $1 } }
        if let error = event.error, all["error"] == nil { all["error"] = "\(error)" }
        StandardStreams.error(Self.line(level: event.level, message: event.message.description, metadata: all))
    }

    /// True when stderr is the journal stream systemd set up (its device and inode match).
    static func stderrIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }
}

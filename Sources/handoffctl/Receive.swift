import HandoffCommandLine
import CHandoffShims
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffClient
import HandoffControl
import HandoffCore

#if canImport(Glibc)
    import Glibc
#endif

/// `handoffctl receive`: the live handler for files sent with `handoffctl send-file`. Each is
/// accepted, its stream opened, its bytes written to `NAME.part` in the directory and renamed to
/// its name (never over an existing file: "NAME (1)", ...) once every byte came; the sender hears
/// one line back ("saved PATH" or why not).
struct Receive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive", abstract: "Receive files sent with `handoffctl send-file`, with progress."
    )
    @OptionGroup var options: ClientOptions
    @Option(help: "Where to save them (default: handoffd's streams.receive_directory, else here).") var dir: String?
    @Option(help: "Exit after this many files.") var count: Int?

    func run() async throws {
        let client = try await options.connect()
        let status = try await options.perform(client, StatusRequest())
        let directory = dir ?? (status.receiveDirectory.isEmpty ? FileManager.default.currentDirectoryPath : status.receiveDirectory)
        // Checked before a file is taken: a directory that is missing or not writable failed each
        // transfer only after the other machine had started sending.
        var info = stat()
        let found = stat(directory, &info) == 0
        let isDirectory = found && (info.st_mode & S_IFMT) == S_IFDIR
        guard isDirectory, access(directory, W_OK) == 0 else {
            let why = !found ? String(cString: strerror(errno)) : !isDirectory ? "it is not a directory" : "it is not writable"
            await client.close()
            throw failure(
                "cannot save files in \(directory): \(why); give another with --dir" + (dir == nil ? " (or set streams.receive_directory)" : ""),
                code: dir == nil ? ExitStatus.refused : ExitStatus.usage)
        }
        _ = try await options.perform(client, HandleRequest(types: [FileTransfer.type.rawValue], name: "handoffctl receive"))
        if !options.json { print("Receiving files into \(directory.terminalSafe); Ctrl-C to stop") }
        fflush(nil)
        var received = 0
        for await event in client.events where event.name == "continue" {
            let token = event.fields["token"]?.stringValue ?? ""
            let fields = event.fields["activity"]?.dictionaryValue ?? [:]
            let info = fields["userInfo"]?.dictionaryValue ?? [:]
            guard let id = fields["id"]?.stringValue.flatMap(UUID.init(uuidString:)),
                let name = info["name"]?.stringValue.flatMap(FileTransfer.safeName),
                let size = info["size"]?.integerValue, size >= 0
            else {
                _ = try? await client.perform(HandledRequest(token: token, accepted: false))
                continue
            }
            _ = try await options.perform(client, HandledRequest(token: token, accepted: true))
            let peer = event.fields["peer"]?.stringValue ?? "?"
            do {
                let stream = try await client.openStream(activity: id)
                let saved = try await save(stream, name: name, size: size, from: stream.info.peer, into: directory)
                if options.json {
                    options.printJSON(.dictionary(["file": .string(saved), "bytes": .integer(size), "peer": .string(stream.info.peer)]))
                } else {
                    print("Saved \(saved.terminalSafe) (\(ProgressBar.size(size))) from \(stream.info.peer.terminalSafe)")
                }
            } catch let e as ExitCode {
                throw e
            } catch {
                StandardStreams.error("handoffctl: could not receive \(name.terminalSafe) from \(peer.terminalSafe): \(error)\n")
            }
            fflush(nil)
            received += 1
            if let count, received >= count {
                await client.close()
                return
            }
        }
        throw Watch.lost("receive")
    }

    private func save(_ stream: HandoffStream, name: String, size: Int64, from peer: String, into directory: String) async throws -> String {
        let part = Self.path(directory, name + ".part")
        let out = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard out >= 0 else {
            let why = "cannot write \(part): \(String(cString: strerror(errno)))"
            Self.answer(stream, "failed \(why)")
            stream.close()
            throw ReceiveError(why)
        }
        let bar = options.json ? nil : ProgressBar(total: size, label: "\(name.terminalSafe) <- \(peer.terminalSafe)")
        let writeback = Writeback(out)
        let copied = await StreamPump.copy(from: stream.descriptor, to: out, limit: size, shutdownAfter: false) {
            bar?.update($0)
            writeback.wrote($0)
        }
        bar?.finish()
        let synced = fsync(out) == 0
        close(out)
        guard copied.error == nil, copied.bytes == size, synced else {
            unlink(part)
            let why = copied.error ?? "the stream ended after \(copied.bytes) of \(size) bytes"
            Self.answer(stream, "failed \(why)")
            _ = await stream.outcome(timeout: .seconds(5))
            stream.close()
            throw ReceiveError(why)
        }
        let path: String
        do { path = try Self.place(part, in: directory, as: name) } catch {
            // The sender is told it failed: nothing of it is left behind under a name of ours.
            unlink(part)
            Self.answer(stream, "failed \(error)")
            stream.close()
            throw error
        }
        Self.answer(stream, "saved \(path)")
        // Read to the sender's end (its half-close), so that both directions finish cleanly.
        var byte: UInt8 = 0
        while read(stream.descriptor, &byte, 1) > 0 {}
        let outcome = await stream.outcome()
        stream.close()
        if case .failed(_, let message) = outcome { throw ReceiveError(message) }
        return path
    }

    /// One line to the sender, then our half-close.
    private static func answer(_ stream: HandoffStream, _ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(stream.descriptor, $0.baseAddress, $0.count) }
        shutdown(stream.descriptor, Int32(SHUT_WR))
    }

    /// Gives the finished `.part` file its name, `name` or "name (1)", ..., never over a file that
    /// is there, even one made meanwhile (a hard link fails on an existing name, where a rename
    /// would replace it; a rename is the fallback where links are not supported), then makes the
    /// new name durable (fsync of the directory): "saved" is said only after that.
    static func path(_ directory: String, _ name: String) -> String { directory.hasSuffix("/") ? directory + name : directory + "/" + name }

    static func place(_ part: String, in directory: String, as name: String) throws(ReceiveError) -> String {
        // "notes.tar.gz" -> "notes.tar (1).gz"; a leading dot starts a name, not an extension.
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let ext = dot.map { String(name[name.index(after: $0)...]) } ?? ""
        let stem = dot.map { String(name[..<$0]) } ?? name
        for i in 0..<10_000 {
            let candidate = path(directory, i == 0 ? name : ext.isEmpty ? "\(stem) (\(i))" : "\(stem) (\(i)).\(ext)")
            if link(part, candidate) == 0 {
                unlink(part)
            } else if errno == EEXIST {
                continue
            } else if FileManager.default.fileExists(atPath: candidate) {
                continue
            } else if rename(part, candidate) != 0 {
                throw ReceiveError("cannot rename \(part): \(String(cString: strerror(errno)))")
            }
            let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { if dir >= 0 { close(dir) } }
            guard dir >= 0, fsync(dir) == 0 else {
                throw ReceiveError("cannot make \(candidate) durable: \(String(cString: strerror(errno)))")
            }
            return candidate
        }
        throw ReceiveError("cannot find a free name for \(name) in \(directory); move some files away")
    }
}

/// Starts writing a received file back to disk every 8 MiB as it arrives, so that its fsync at
/// the end waits for the last few MiB instead of all of it. Touched only on the copying thread.
final class Writeback: @unchecked Sendable {
    private let fd: Int32
    private var started: Int64 = 0
    static let step: Int64 = 8 << 20

    init(_ fd: Int32) { self.fd = fd }

    func wrote(_ total: Int64) {
        guard total - started >= Self.step else { return }
        _ = handoff_start_writeback(fd, started, total - started)
        started = total
    }
}

struct ReceiveError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

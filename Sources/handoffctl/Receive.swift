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
/// accepted if it fits the limits (`ReceiveLimits`: its size, the machine's quota, the free space
/// kept), its stream opened with the machine that sent it, its bytes written to a hidden file of
/// our own making in the directory (created exclusively) and linked to its name (never over an
/// existing file: "NAME (1)", ...) once every byte came; the sender hears one line back ("saved
/// NAME" or why not).
struct Receive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive", abstract: "Receive files sent with `handoffctl send-file`, with progress."
    )
    @OptionGroup var options: ClientOptions
    @Option(help: "Where to save them (default: handoffd's streams.receive_directory, else here).") var dir: String?
    @Option(help: "Exit after this many files.") var count: Int?
    @Option(help: "The largest file taken, such as 500M or 2G (default 64G).") var maxSize: String?
    @Option(help: "Free space always kept on the disk (default 1G, or a tenth of a smaller disk).") var keepFree: String?
    @Option(help: "The most taken from one machine while this runs (default 256G).") var quota: String?

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
        let limits = try readLimits()
        _ = try await options.perform(client, HandleRequest(types: [FileTransfer.type.rawValue], name: "handoffctl receive"))
        if !options.json { print("Receiving files into \(directory.terminalSafe); Ctrl-C to stop") }
        fflush(nil)
        var received = 0
        var fromPeer: [String: Int64] = [:]
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
            // A token that lapsed (the sender gave up) is not this command's end: the next file may come.
            do { _ = try await client.perform(HandledRequest(token: token, accepted: true)) } catch {
                StandardStreams.error(
                    "handoffctl: a file offered by \((event.fields["peer"]?.stringValue ?? "?").terminalSafe) was withdrawn: \(error.description.terminalSafe)\n"
                )
                continue
            }
            let peer = event.fields["peer"]?.stringValue ?? "?"
            let fingerprint = event.fields["fingerprint"]?.stringValue
            do {
                // The stream is asked of the machine that sent it, by its key: not of whichever
                // machine last named the same activity id.
                let stream = try await client.openStream(activity: id, peer: fingerprint)
                let key = fingerprint ?? stream.info.peer
                let disk = Self.space(directory)
                if let refusal = limits.refusal(size: size, fromPeer: fromPeer[key] ?? 0, freeBytes: disk.free, totalBytes: disk.total) {
                    Self.answer(stream, "failed \(refusal)")
                    // A moment for the answer to leave; the sender's bytes are not read.
                    _ = await stream.outcome(timeout: .seconds(1))
                    stream.close()
                    throw ReceiveError(refusal)
                }
                fromPeer[key, default: 0] += size
                let saved = try await save(stream, name: name, size: size, from: stream.info.peer, into: directory, limits: limits)
                if options.json {
                    options.printJSON(.dictionary(["file": .string(saved), "bytes": .integer(size), "peer": .string(stream.info.peer)]))
                } else {
                    print("Saved \(saved.terminalSafe) (\(ProgressBar.size(size))) from \(stream.info.peer.terminalSafe)")
                }
            } catch let e as ExitCode {
                throw e
            } catch {
                // The reason may be the other machine's words: shown, never obeyed by the terminal.
                StandardStreams.error("handoffctl: could not receive \(name.terminalSafe) from \(peer.terminalSafe): \("\(error)".terminalSafe)\n")
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

    private func readLimits() throws -> ReceiveLimits {
        var limits = ReceiveLimits()
        for (text, option, set) in [
            (maxSize, "--max-size", { (n: Int64) in limits.maxFileBytes = n }), (keepFree, "--keep-free", { limits.keepFreeBytes = $0 }),
            (quota, "--quota", { limits.perPeerBytes = $0 })
        ] {
            guard let text else { continue }
            guard let n = ReceiveLimits.parseSize(text) else {
                throw failure("\(option) takes a size such as 500M or 2G, not '\(text)'", code: ExitStatus.usage)
            }
            set(n)
        }
        return limits
    }

    private func save(_ stream: HandoffStream, name: String, size: Int64, from peer: String, into directory: String, limits: ReceiveLimits)
        async throws -> String
    {
        // A name of our own, created exclusively: never a file that is there (a download in
        // progress, a link planted by someone), which a failure would then delete.
        let (out, part) = Self.createPart(in: directory, for: name)
        guard out >= 0 else {
            let why = "cannot write in \(directory): \(String(cString: strerror(errno)))"
            Self.answer(stream, "failed \(why)")
            stream.close()
            throw ReceiveError(why)
        }
        let bar =
            options.json
            ? nil
            : ProgressBar(
                total: size, label: "\(name.terminalSafe) <- \(peer.terminalSafe)",
                waiting: "waiting for the link to \(peer.terminalSafe) (the transfer resumes if it is back within a minute)")
        let writeback = Writeback(out)
        let copied = await StreamPump.copy(
            from: stream.descriptor, to: out, limit: size, shutdownAfter: false,
            progress: {
                bar?.update($0)
                writeback.wrote($0)
            },
            check: { done in
                let disk = Self.space(directory)
                return limits.stopWriting(remaining: size - done, freeBytes: disk.free, totalBytes: disk.total)
            })
        if copied.error == nil, copied.bytes == size { bar?.waitFor("saving it (fsync)") }
        let synced = fsync(out) == 0
        bar?.finish()
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
        // Only the name goes back: where this machine keeps files is not the sender's to know.
        Self.answer(stream, "saved \(path.split(separator: "/").last.map(String.init) ?? name)")
        // Read to the sender's end (its half-close), so that both directions finish cleanly. The
        // file is saved: a sender that never ends its side holds this command 10 s, not more.
        guard await StreamPump.drain(stream.descriptor, within: .seconds(10)) else {
            stream.close()
            return path
        }
        let outcome = await stream.outcome(timeout: .seconds(10))
        stream.close()
        if case .failed(_, let message) = outcome { throw ReceiveError(message) }
        return path
    }

    /// A new hidden file beside where `name` will go, made with O_EXCL; its descriptor and path.
    static func createPart(in directory: String, for name: String) -> (Int32, String) {
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let part = path(directory, ".\(name.prefix(200)).\(suffix).handoff-part")
            let fd = open(part, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
            if fd >= 0 || errno != EEXIST { return (fd, part) }
        }
        return (-1, directory)
    }

    /// Free and total bytes of the filesystem holding `directory` (for an unprivileged writer).
    static func space(_ directory: String) -> (free: Int64, total: Int64) {
        var s = statvfs()
        guard statvfs(directory, &s) == 0 else { return (0, 0) }
        return (Int64(s.f_bavail) * Int64(s.f_frsize), Int64(s.f_blocks) * Int64(s.f_frsize))
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

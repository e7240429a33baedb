import HandoffCommandLine
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

/// `handoffctl send-file PATH --to PEER`: a push whose activity names the file and whose
/// continuation stream carries its bytes; `handoffctl receive` on the other machine saves it.
struct SendFile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-file", abstract: "Send a file to a paired machine (where `handoffctl receive` runs), with progress."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "The file to send.") var path: String
    @Option(help: "The paired machine.") var to: String

    func run() async throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot read \(path): \(String(cString: strerror(errno)))", code: ExitStatus.noInput) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw failure("\(path) is not a regular file", code: ExitStatus.noInput) }
        let size = Int64(st.st_size)
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard FileTransfer.safeName(name) != nil else {
            throw failure("'\(name)' cannot be sent as a file name (hidden, or control characters); rename it first", code: ExitStatus.usage)
        }
        var activity = UserActivity(type: FileTransfer.type)
        activity.title = name
        try activity.addUserInfoEntries(["name": .string(name), "size": .integer(size)])
        activity.supportsContinuationStreams = true
        activity.isEligibleForSearch = false

        // The owner's connection (it is asked for the stream) and the push's, apart: a connection
        // answers its requests in order, and the push is answered only once the receiver took it.
        // For that machine alone: no other paired machine lists, fetches or streams it.
        let owner = try await options.connect()
        let published = try await options.perform(owner, PublishRequest(activity: activity, to: to))
        let id = published.activity
        let fingerprint = published.audience ?? ""
        let pushing = Task { try await options.withClient { try await options.perform($0, SendRequest(activity: id, to: to)) } }
        let started = ContinuousClock.now
        var stream: HandoffStream?
        let wait = Task { () -> String? in
            for await event in owner.events where event.name == "streamRequested" && event.fields["activity"]?.stringValue == id.canonicalString {
                guard let token = event.fields["stream"]?.stringValue else { continue }
                // Only the machine it was pushed to, by the key pinned at pairing.
                guard event.fields["fingerprint"]?.stringValue == fingerprint else {
                    try? await owner.refuseStream(token)
                    continue
                }
                return token
            }
            return nil
        }
        let report: ContinuationReport
        do { report = try await pushing.value } catch {
            wait.cancel()
            await finish(owner, id)
            throw error
        }
        if report.failed {
            wait.cancel()
            await finish(owner, id)
            // Nothing there takes files: said as what to do, not as the generic "no handler for the type".
            if report.code == .noHandler {
                throw failure(
                    "\(to) is not receiving files: run `handoffctl receive` there first (or configure a handler for \(FileTransfer.type.rawValue))",
                    code: ExitStatus.continuationFailed)
            }
            throw failure("\(to) did not take the file (\(report.code ?? "")): \(report.message ?? "")", code: ExitStatus.continuationFailed)
        }
        let token = await Timeout.value(of: wait, within: .seconds(15))
        guard let token else {
            await finish(owner, id)
            throw failure("\(to) took the file but never asked for its bytes; is `handoffctl receive` running there?", code: ExitStatus.refused)
        }
        do { stream = try await owner.acceptStream(token) } catch {
            await finish(owner, id)
            throw failure("could not open the stream: \(error.description)", code: ExitStatus.refused)
        }
        guard let stream else { return }
        let bar =
            options.json
            ? nil
            : ProgressBar(
                total: size, label: "\(name.terminalSafe) -> \(to.terminalSafe)",
                waiting: "waiting for the link to \(to.terminalSafe) (the transfer resumes if it is back within a minute)")
        let sent = await StreamPump.copy(from: fd, to: stream.descriptor, limit: size, shutdownAfter: true) { bar?.update($0) }
        // Every byte left this machine: done once the receiver has them on its disk.
        if sent.error == nil { bar?.waitFor("waiting for \(to.terminalSafe) to save it") }
        // The receiver answers one line (saved, or why not) and closes.
        let answer = await StreamPump.readLine(stream.descriptor)
        bar?.finish()
        let outcome = await stream.outcome()
        stream.close()
        await finish(owner, id)
        let seconds =
            Double((ContinuousClock.now - started).components.attoseconds) / 1e18 + Double((ContinuousClock.now - started).components.seconds)
        let ok = sent.error == nil && sent.bytes == size && outcome.isFinished && answer.hasPrefix("saved ")
        if options.json {
            options.printJSON(
                .dictionary([
                    "file": .string(name), "peer": .string(to), "fingerprint": .string(fingerprint), "bytes": .integer(sent.bytes),
                    "seconds": .real(seconds),
                    "outcome": .string(ok ? "sent" : "failed"), "receiver": .string(answer), "stream": .string(outcome.description)
                ]))
        } else if ok {
            print(
                "Sent \(name.terminalSafe) to \(to.terminalSafe) (\(fingerprint)): \(ProgressBar.size(size)) in \(seconds.fixedPoint(2)) s (\(answer.terminalSafe))"
            )
        }
        guard ok else {
            // The receiver's own reason first (a limit, a full disk): the broken pipe follows from it.
            let why = answer.hasPrefix("failed ") ? String(answer.dropFirst(7)) : sent.error ?? (answer.isEmpty ? outcome.description : answer)
            throw failure("sending \(name) failed: \(why)", code: ExitStatus.refused)
        }
    }

    private func finish(_ owner: HandoffClient, _ id: UUID) async {
        _ = try? await owner.perform(ResignRequest(activity: id))
        await owner.close()
    }
}

enum Timeout {
    /// The task's value, or nil (and the task cancelled) after `limit`.
    static func value<T: Sendable>(of task: Task<T?, Never>, within limit: Duration) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await task.value }
            group.addTask {
                try? await Task.sleep(for: limit)
                task.cancel()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

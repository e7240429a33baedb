import CHandoffShims
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffAsync
import HandoffControl
import HandoffCore

#if canImport(Glibc)
    import Glibc
#endif

/// Asks for a stream on a connection of its own, read with recvmsg (NIO cannot receive a
/// descriptor): the request line goes out, the answer line comes back with the stream's socket
/// attached (SCM_RIGHTS). The connection stays open for the stream's `streamClosed` event.
enum StreamDoor {
    static func ask<Op: ControlOperation>(_ op: Op, socketPath: String) async throws(ClientError) -> HandoffStream where Op.Result == StreamInfo {
        let line = ControlRequest(id: 1, op: Op.name, arguments: op.arguments).line
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<HandoffStream, ClientError>, Never>) in
            // Blocking calls, on a thread of their own (the answer may wait for the other app).
            BlockingThread.start { done.resume(returning: exchange(line, socketPath: socketPath)) }
        }
        return try result.get()
    }

    private static func exchange(_ line: [UInt8], socketPath: String) -> Result<HandoffStream, ClientError> {
        let fd: Int32
        do throws(ClientError) { fd = try HandoffClient.connectBlocking(socketPath) } catch { return .failure(error) }
        var sent = 0
        while sent < line.count {
            let n = line[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                close(fd)
                return .failure(.connectionLost)
            }
            sent += n
        }
        var pending: [UInt8] = []
        var passed: Int32 = -1
        var events: [ControlEvent] = []
        func fail(_ e: ClientError) -> Result<HandoffStream, ClientError> {
            if passed >= 0 { close(passed) }
            close(fd)
            return .failure(e)
        }
        while true {
            while let nl = pending.firstIndex(of: 0x0A) {
                let bytes = Array(pending[..<nl])
                pending.removeSubrange(...nl)
                if let e = event(bytes) {
                    events.append(e)
                    continue
                }
                guard let value = try? JSONValue.parse(bytes), let fields = value.dictionaryValue else {
                    return fail(.badResponse("an answer that could not be read"))
                }
                guard fields["ok"]?.boolValue == true else {
                    let err = fields["error"]?.dictionaryValue
                    return fail(
                        .refused(
                            code: err?["code"]?.stringValue.map { FailureCode($0) } ?? .badResponse,
                            message: err?["message"]?.stringValue ?? "handoffd refused the request"))
                }
                let info: StreamInfo
                do throws(ControlError) { info = try StreamInfo(propertyList: fields["result"]) } catch {
                    return fail(.badResponse(error.description))
                }
                guard passed >= 0 else { return fail(.badResponse("the answer came without the stream's socket")) }
                return .success(HandoffStream(info: info, descriptor: passed, connection: fd, buffered: pending, earlyEvents: events))
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            var got: Int32 = -1
            let n = chunk.withUnsafeMutableBytes { handoff_recv_with_fd(fd, $0.baseAddress, UInt($0.count), &got) }
            if got >= 0 {
                if passed >= 0 { close(passed) }
                passed = got
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return fail(.connectionLost) }
            pending += chunk[..<n]
        }
    }

    /// An event line, or nil if the line is not one.
    static func event(_ line: [UInt8]) -> ControlEvent? {
        guard var fields = (try? JSONValue.parse(line))?.dictionaryValue, let name = fields.removeValue(forKey: "event")?.stringValue else {
            return nil
        }
        return ControlEvent(name: name, fields: fields)
    }
}

extension HandoffClient {
    /// Asks for a continuation stream with the app that owns `activity` on the machine it was
    /// continued from (this machine continued it, or was pushed it). Fails with the other side's
    /// reason: not continued, no app there, refused, not accepted in time, too many streams.
    /// `peer` (a name or fingerprint) names the machine it came from, needed only when more
    /// than one gave this activity id (`ambiguous-origin`).
    public func openStream(activity: UUID, peer: String? = nil) async throws(ClientError) -> HandoffStream {
        try await StreamDoor.ask(StreamOpenRequest(activity: activity, peer: peer), socketPath: socketPath)
    }

    /// Takes the stream a `streamRequested` event offered (its `stream` field).
    public func acceptStream(_ token: String) async throws(ClientError) -> HandoffStream {
        try await StreamDoor.ask(StreamAcceptRequest(stream: token), socketPath: socketPath)
    }

    /// Refuses it: the asking app hears `stream-refused` at once.
    public func refuseStream(_ token: String) async throws(ClientError) { _ = try await perform(StreamRefuseRequest(stream: token)) }
}

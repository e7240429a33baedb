import Glibc
import NIOCore
import Testing
@testable import HandoffLink

/// What `pair` and a request to an unreachable peer say when the connection fails: the cause,
/// in words a person can act on, and "run `handoffctl pair --accept` there" only when that is the
/// cause. Before, NIO's text ("connection reset (error set): Connection refused) (errno: 111)")
/// came with that advice for every failure, a name that does not resolve included.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ConnectFailureTests {
    func pairingFailure(host: String, port: Int) async throws -> String {
        let a = try await Node.start("A")
        defer { Task { await a.endpoint.shutdown() } }
        do {
            _ = try await a.endpoint.pair(host: host, port: port)
            Issue.record("paired with \(host):\(port)")
            return ""
        } catch { return ConnectFailure.reason(error) }
    }

    @Test func aPortNobodyListensOn() async throws {
        // A port bound and not listened on, held for the test: nothing else (another test's
        // listener, as a port closed and given back was) can take it meanwhile.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) == 0 && getsockname(fd, $0, &size) == 0 }
        }
        try #require(fd >= 0 && bound)
        let why = try await pairingFailure(host: "127.0.0.1", port: Int(UInt16(bigEndian: address.sin_port)))
        #expect(why.contains("connection refused") && why.contains("handoffd is not running on it"), "\(why)")
        #expect(!why.contains("pair --accept"))
    }

    @Test func aMachineWhoseWindowIsClosed() async throws {
        let b = try await Node.start("B")
        defer { Task { await b.endpoint.shutdown() } }
        let why = try await pairingFailure(host: "127.0.0.1", port: b.port)
        #expect(why == PairingRefusal.notAccepting.description)
        #expect(why.contains("run `handoffctl pair --accept` there first"))
    }

    @Test func aNameThatDoesNotResolve() async throws {
        // .invalid never resolves (RFC 6761).
        let why = try await pairingFailure(host: "no-such-host.invalid", port: 7340)
        #expect(why == "the name no-such-host.invalid cannot be resolved on this machine; check it, or give the machine's address", "\(why)")
    }

    @Test func theOtherCauses() {
        #expect(ConnectFailure.reason(IOError(errnoCode: ENETUNREACH, reason: "connect")).contains("network unreachable"))
        #expect(ConnectFailure.reason(IOError(errnoCode: EHOSTUNREACH, reason: "connect")).contains("host unreachable"))
        #expect(ConnectFailure.reason(ChannelError.connectTimeout(.seconds(10))).hasPrefix("it did not answer within 10 s"))
        #expect(ConnectFailure.reason(ChannelError.connectTimeout(.milliseconds(250))).hasPrefix("it did not answer within 0.25 s"))
        #expect(ConnectFailure.reason(LinkError.handshakeTimeout(seconds: 10)) == LinkError.handshakeTimeout(seconds: 10).description)
        // Anything else as it describes itself.
        #expect(ConnectFailure.reason(IOError(errnoCode: EPERM, reason: "connect")).contains("connect"))
    }
}

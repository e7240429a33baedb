import Glibc
import NIOCore
import NIOPosix
import Testing
@testable import HandoffLink

/// Addresses given as text, and the names RFC 6761 reserves, skip the resolver
/// (AddressLiterals.swift): no test here asks a DNS server, which may not answer where it runs.
@Suite(.serialized, .timeLimit(.minutes(1))) struct AddressLiteralTests {
    @Test func localhostListensAndDialsAsTheLoopback() async throws {
        let a = try await Node.start("by name", host: "localhost"), b = try await Node.start("by address")
        pinEachOther(a, b)
        let byAddress = try await b.endpoint.connect(host: "127.0.0.1", port: a.port, expecting: a.identity)
        #expect(byAddress.peer == a.identity)
        let byName = try await a.endpoint.connect(host: "LocalHost.", port: b.port, expecting: b.identity)
        #expect(byName.peer == b.identity)
        await byAddress.close()
        await byName.close()
        #expect(try ReservedName.address("box.localhost", port: 9) == (try SocketAddress(ipAddress: "127.0.0.1", port: 9)))
        #expect(try ReservedName.address("laptop.lan", port: 9) == nil)
    }

    @Test func aNameUnderInvalidFailsAtOnceAsUnresolved() async throws {
        let a = try await Node.start("alone")
        let started = ContinuousClock.now
        do {
            _ = try await a.endpoint.connect(host: "no-such-host.invalid", port: 9, expecting: nil)
            Issue.record("connected to a name under .invalid")
        } catch {
            #expect(ConnectFailure.isUnresolvedName(error), "\(error)")
            #expect(ConnectFailure.reason(error).hasPrefix("the name no-such-host.invalid cannot be resolved"))
        }
        // A resolver was not asked: it takes 10 s where DNS is dropped.
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test func onlyPlainAddressesAreTakenAsThey() throws {
        #expect((try? SocketAddress(ipAddress: "10.1.2.3", port: 1)) != nil)
        #expect((try? SocketAddress(ipAddress: "fd00::1", port: 1)) != nil)
        // A link-local address keeps its zone (the interface's index).
        let zoned = try SocketAddress(ipAddress: "fe80::1%lo", port: 1)
        guard case .v6(let v6) = zoned else {
            Issue.record("not IPv6: \(zoned)")
            return
        }
        #expect(v6.address.sin6_scope_id == if_nametoindex("lo"))
        // A name is a name.
        #expect((try? SocketAddress(ipAddress: "localhost", port: 1)) == nil)
    }
}

import Glibc
import NIOCore
import NIOPosix
import Testing
@testable import HandoffLink

/// Addresses given as text skip the resolver; names still go through it (AddressLiterals.swift).
@Suite(.serialized, .timeLimit(.minutes(1))) struct AddressLiteralTests {
    @Test func namesAndAddressesBothListenAndDial() async throws {
        // Listening on a name: the resolver's path.
        let a = try await Node.start("by name", host: "localhost"), b = try await Node.start("by address")
        pinEachOther(a, b)
        let byAddress = try await b.endpoint.connect(host: "127.0.0.1", port: a.port, expecting: a.identity)
        #expect(byAddress.peer == a.identity)
        let byName = try await a.endpoint.connect(host: "localhost", port: b.port, expecting: b.identity)
        #expect(byName.peer == b.identity)
        await byAddress.close()
        await byName.close()
    }

    @Test func aNameThatDoesNotResolveStillFailsAsBefore() async throws {
        let a = try await Node.start("alone")
        await #expect(throws: (any Error).self) {
            _ = try await a.endpoint.connect(host: "no-such-host.invalid", port: 9, expecting: nil)
        }
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

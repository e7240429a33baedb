import Crypto
import Foundation
import HandoffAdvert
import HandoffCore
import HandoffDiscovery
import HandoffProtocol
import HandoffTestSupport
import Testing
@testable import HandoffDaemon
@testable import HandoffLink

/// Docs/vectors/handoffd-vectors.json holds, for fixed keys, nonces and ids, the exact
/// bytes of a pairing handshake, each pairing message, the link's control messages, peer messages
/// and a sealed advert record: what a second implementation checks itself against. This test
/// checks that handoffd produces exactly those bytes and reads them back to the same values.
/// `HANDOFF_WRITE_VECTORS=1` writes the file anew (then read the diff: the bytes are the protocol).
@Suite struct ProtocolVectorTests {
    static let path = TestHostSet.repositoryRoot.appendingPathComponent("docs/vectors/handoffd-vectors.json")

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = hex.makeIterator()
        while let a = it.next(), let b = it.next() { out.append(UInt8(String([a, b]), radix: 16)!) }
        return out
    }
    static func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
    static func key(_ byte: UInt8) -> [UInt8] { (0..<32).map { byte &+ UInt8($0) } }

    /// Every vector, as handoffd makes it now.
    static func made() throws -> [String: [String: String]] {
        var v: [String: [String: String]] = [:]
        // A pairing-mode link handshake: alpha (initiator) asks beta (responder).
        let aStatic = try X25519.PrivateKey(rawRepresentation: key(0x01)), aEph = try X25519.PrivateKey(rawRepresentation: key(0x21))
        let bStatic = try X25519.PrivateKey(rawRepresentation: key(0x41)), bEph = try X25519.PrivateKey(rawRepresentation: key(0x61))
        let preamble = LinkPreamble(mode: .pairing).bytes
        var a = NoiseHandshake(role: .initiator, prologue: preamble, staticKey: aStatic, ephemeral: aEph)
        var b = NoiseHandshake(role: .responder, prologue: preamble, staticKey: bStatic, ephemeral: bEph)
        let m1 = try a.writeMessage()
        _ = try b.readMessage(m1)
        let m2 = try b.writeMessage(payload: Array("beta".utf8))
        _ = try a.readMessage(m2)
        let m3 = try a.writeMessage(payload: Array("alpha".utf8))
        _ = try b.readMessage(m3)
        var bTransport = try b.split()
        let h = a.handshakeHash
        v["link_handshake"] = [
            "initiator_static_private": hex(key(0x01)), "initiator_ephemeral_private": hex(key(0x21)),
            "responder_static_private": hex(key(0x41)), "responder_ephemeral_private": hex(key(0x61)),
            "preamble": hex(preamble), "message1": hex(m1), "message2_payload": "beta", "message2": hex(m2),
            "message3_payload": "alpha", "message3": hex(m3), "handshake_hash": hex(h),
            "acceptance_transport": hex(try bTransport.encrypt(LinkHandshakeMachine.accepted)),
            "initiator_fingerprint": IdentityKey(privateKey: aStatic).identity.fingerprint,
            "initiator_id": IdentityKey(privateKey: aStatic).identity.id.rawValue
        ]
        // The pairing messages on that handshake.
        let na = (0..<16).map { UInt8(0xA0 + $0) }, nb = (0..<16).map { UInt8(0xB0 + $0) }
        var initiator = PairingMachine(role: .initiator, handshakeHash: h, nonce: na)
        var responder = PairingMachine(role: .responder, handshakeHash: h, nonce: nb)
        guard case .send(let commit)? = initiator.start().first, case .send(let nonce)? = responder.receive(commit).first,
            case .send(let reveal)? = initiator.receive(nonce).first, case .showCode(let code)? = responder.receive(reveal).first,
            case .send(let confirm)? = responder.confirm().first, case .send(let reject)? = initiator.abort(.rejectedHere).first
        else { throw TimedOut(what: "the pairing machines' messages") }
        v["pairing"] = [
            "handshake_hash": hex(h), "initiator_nonce": hex(na), "responder_nonce": hex(nb), "commit": hex(commit), "nonce": hex(nonce),
            "reveal": hex(reveal), "confirm": hex(confirm), "reject_codes_differ": hex(reject), "code": code
        ]
        // Link control, and a refusal before any handshake.
        let adv = AdvertisingKey(generation: 7, key: key(0x80))
        v["link_control"] = [
            "advertising_key": hex(LinkControl.advertisingKey(adv).bytes), "unpaired": hex(LinkControl.unpaired.bytes),
            "pairing_refused_not_accepting": hex(PairingRefusal.notAccepting.frame)
        ]
        // Peer messages (each sent as 00 + these bytes in one transport message).
        let id = UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!
        var activity = UserActivity(type: try ActivityType("org.hawknotes.bookDetail"), id: id, title: "The Burning Swift")
        try activity.addUserInfoEntries(["bookID": "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"])
        let messages: [String: PeerMessage] = [
            "hello": .hello(id: 1, Hello(device: "alpha", types: ["org.hawknotes.bookDetail"], port: 7340, addresses: ["192.0.2.10"])),
            "list": .list(id: 2), "fetch": .fetch(id: 3, activityID: id), "activity": .activity(id: 3, activity: activity),
            "push": .push(id: 4, activity: activity), "outcome_continued": .outcome(id: 4, outcome: .continued),
            "continued": .continued(activityID: id, version: 1, outcome: .continued),
            "changed": .changed(items: [ActivitySummary(activity, scene: nil, updated: Date(timeIntervalSince1970: 1_780_000_000))]),
            "ping": .ping(id: 5), "pong": .pong(id: 5),
            "goodbye": .goodbye,
            "error_not_found": .error(id: 3, code: "not-found", message: "activity 0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0 is not current here")
        ]
        v["peer_messages"] = try messages.mapValues { hex(try $0.encoded()) }
        // A sealed advert record: key, salt, sequence and one token fixed.
        let token = AdvertTXT.Token(activityID: id, type: "org.hawknotes.bookDetail", version: 1)
        let salt = (0..<16).map { UInt8(0xC0 + $0) }
        let txt = try PrivateAdvert.record(PrivateAdvert.Contents(sequence: 3, tokens: [token]), key: adv, salt: salt)
        v["advert"] = [
            "advertising_key": hex(adv.key), "generation": "\(adv.generation)", "salt": hex(salt), "sequence": "3",
            "token_activity": id.uuidString, "token_type": "org.hawknotes.bookDetail", "token_version": "1",
            "v": "2", "n": txt["n"] ?? "", "m": txt["m"] ?? "", "b": txt["b"] ?? "",
            // The instance name's tag: the name's random 16 characters fixed.
            "name_prefix": "abcdefghijklmnop", "name": AdvertNameTag.name(prefix: "abcdefghijklmnop", key: adv)
        ]
        return v
    }

    static func stored() throws -> [String: [String: String]] {
        try JSONDecoder().decode([String: [String: String]].self, from: Data(contentsOf: path))
    }

    @Test func handoffdMakesExactlyTheVectorsBytes() throws {
        let made = try Self.made()
        if ProcessInfo.processInfo.environment["HANDOFF_WRITE_VECTORS"] == "1" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try FileManager.default.createDirectory(at: Self.path.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(made).write(to: Self.path)
        }
        let stored = try Self.stored()
        #expect(Set(stored.keys) == Set(made.keys))
        for (section, fields) in stored {
            for (name, value) in fields { #expect(made[section]?[name] == value, "\(section).\(name)") }
        }
    }

    @Test func handoffdReadsTheVectorsBack() throws {
        let v = try Self.stored()
        for (name, hex) in try #require(v["peer_messages"]) {
            let message = try PeerMessage(decoding: Self.bytes(hex))
            #expect(Self.hex(try message.encoded()) == hex, "\(name) round-trips")
        }
        let adv = try #require(v["advert"])
        let key = AdvertisingKey(generation: UInt32(adv["generation"]!)!, key: Self.bytes(adv["advertising_key"]!))
        let txt = try TXTRecord(["v": "2", "n": adv["n"]!, "m": adv["m"]!, "b": adv["b"]!])
        let keys: [(peerID: PeerID, key: AdvertisingKey)] = [(PeerID("p"), key)]
        let opened = try #require(PrivateAdvert.recognise(txt, keys: keys))
        #expect(opened.contents.sequence == 3 && opened.contents.tokens.first?.activityID.uuidString == adv["token_activity"])
    }

    /// The second implementation checks the same file: its encoder, its pairing messages and
    /// code, and its Noise handshake with the fixed keys (python3-dissononce).
    @Test func thePythonPeerAgreesWithTheVectors() throws {
        let script = TestHostSet.repositoryRoot.appendingPathComponent("Tests/Rigs/conformance-peer.py").path
        let (status, output) = try runCommand(["/usr/bin/python3", script, "check-vectors=\(Self.path.path)"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("vectors ok"), "\(output)")
    }
}

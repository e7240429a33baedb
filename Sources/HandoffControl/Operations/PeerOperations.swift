#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// `peers`: every machine known: listed on the network, paired, or both.
public struct PeersRequest: ControlOperation {
    public typealias Result = Listing<PeerInfo>
    public static let name = "peers"
    public init() {}
    public init(request: ControlRequest) throws(ControlError) {}
    public var arguments: [String: PropertyListValue] { [:] }
}

public struct PeerInfo: ControlItem, Equatable {
    public var name: String
    public var fingerprint: String?
    public var paired: Bool
    /// Answering on the link now.
    public var present: Bool
    /// Listed by DNS-SD now.
    public var listed: Bool
    public var connected: Bool
    public var addresses: [String]
    public var port: Int64?
    public var pairedName: String?
    /// How this machine knows where the peer is: "mdns" (listed now), "static" (a configured
    /// address), "remembered" (where it was last reached).
    public var foundBy: [String]
    /// The open session's far end ("host:port"), and its end here; nil when absent.
    public var address: String?
    public var localAddress: String?
    /// Sessions open with the peer: 1 when present (2 only for a moment, when both dialled at once).
    public var sessions: Int64
    /// The instance name of the advert it is listed under (random, new at each of its rotations).
    public var advert: String?
    /// A paired peer's: where this machine dials it ("host:port"), its advert's address and port,
    /// else where it was last reached. Unlike `address`, never an ephemeral port.
    public var endpoint: String?

    public init(
        name: String, fingerprint: String?, paired: Bool, present: Bool, listed: Bool, connected: Bool,
        addresses: [String] = [], port: Int64? = nil, pairedName: String? = nil, foundBy: [String] = [], address: String? = nil,
        localAddress: String? = nil, sessions: Int64 = 0, advert: String? = nil, endpoint: String? = nil
    ) {
        (self.advert, self.endpoint) = (advert, endpoint)
        (self.name, self.fingerprint, self.paired, self.present, self.listed) = (name, fingerprint, paired, present, listed)
        (self.connected, self.addresses, self.port, self.pairedName) = (connected, addresses, port, pairedName)
        (self.foundBy, self.address, self.localAddress, self.sessions) = (foundBy, address, localAddress, sessions)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("name", name)
        w.set("fingerprint", fingerprint)
        w.set("paired", paired)
        w.set("present", present)
        w.set("listed", listed)
        w.set("connected", connected)
        if listed { w["addresses"] = .array(addresses.map(PropertyListValue.string)) }
        w.set("advert", advert)
        w.set("port", port)
        w.set("pairedName", pairedName)
        // A pairing advert says where it was found too: one from a zone may be anyone's with the key.
        if paired || !foundBy.isEmpty { w["foundBy"] = .array(foundBy.map(PropertyListValue.string)) }
        if paired {
            w.set("address", address)
            w.set("localAddress", localAddress)
            w.set("sessions", sessions)
            w.set("endpoint", endpoint)
        }
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            name: try f.string("name"), fingerprint: try f.optionalString("fingerprint"), paired: try f.bool("paired"),
            present: try f.bool("present"), listed: try f.bool("listed"), connected: try f.bool("connected"),
            addresses: try f.strings("addresses"), port: try f.optionalInteger("port"), pairedName: try f.optionalString("pairedName"),
            foundBy: try f.strings("foundBy"), address: try f.optionalString("address"), localAddress: try f.optionalString("localAddress"),
            sessions: try f.optionalInteger("sessions") ?? 0, advert: try f.optionalString("advert"), endpoint: try f.optionalString("endpoint"))
    }
}

/// `trust`: the paired machines whose keys this machine trusts.
public struct TrustRequest: ControlOperation {
    public typealias Result = Listing<TrustedPeerInfo>
    public static let name = "trust"
    public init() {}
    public init(request: ControlRequest) throws(ControlError) {}
    public var arguments: [String: PropertyListValue] { [:] }
}

public struct TrustedPeerInfo: ControlItem, Equatable {
    public var name: String
    public var fingerprint: String
    public var pairedAt: Date
    public var theirAdvertisingGeneration: Int64?

    public init(name: String, fingerprint: String, pairedAt: Date, theirAdvertisingGeneration: Int64?) {
        (self.name, self.fingerprint, self.pairedAt, self.theirAdvertisingGeneration) = (name, fingerprint, pairedAt, theirAdvertisingGeneration)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("name", name)
        w.set("fingerprint", fingerprint)
        w.set("pairedAt", pairedAt)
        w.set("theirAdvertisingGeneration", theirAdvertisingGeneration)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            name: try f.string("name"), fingerprint: try f.string("fingerprint"), pairedAt: try f.date("pairedAt"),
            theirAdvertisingGeneration: try f.optionalInteger("theirAdvertisingGeneration"))
    }
}

/// `pair`: starts pairing with a listed machine whose window is open.
public struct PairRequest: ControlOperation {
    public typealias Result = PairingCode
    public static let name = "pair"
    /// Waits on a peer, a handler or a person: bounded by handoffd, not by the client.
    public var answerWithin: Duration? { nil }
    public var peer: String
    public init(peer: String) { self.peer = peer }
    public init(request: ControlRequest) throws(ControlError) { peer = try request.fields.string("peer") }
    public var arguments: [String: PropertyListValue] { ["peer": .string(peer)] }
}

/// `pair-accept`: opens the window and waits for a machine to start pairing.
public struct PairAcceptRequest: ControlOperation {
    public typealias Result = PairingCode
    public static let name = "pair-accept"
    /// Waits on a peer, a handler or a person: bounded by handoffd, not by the client.
    public var answerWithin: Duration? { nil }
    /// Seconds, 1 to 600.
    public var timeout: Int64
    public init(timeout: Int64 = 120) { self.timeout = timeout }
    public init(request: ControlRequest) throws(ControlError) {
        timeout = max(1, min(try request.fields.optionalInteger("timeout") ?? 120, 600))
    }
    public var arguments: [String: PropertyListValue] { ["timeout": .integer(timeout)] }
}

/// The code both machines show, to compare before `pair-confirm`.
public struct PairingCode: ControlObject, Equatable {
    public var pairing: String
    public var code: String
    public var peer: String
    public var fingerprint: String
    /// Where the other machine is ("host:port"): the address the attempt came from, with `--accept`.
    public var address: String?

    public init(pairing: String, code: String, peer: String, fingerprint: String, address: String? = nil) {
        (self.pairing, self.code, self.peer, self.fingerprint, self.address) = (pairing, code, peer, fingerprint, address)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("pairing", pairing)
        w.set("code", code)
        w.set("peer", peer)
        w.set("fingerprint", fingerprint)
        w.set("address", address)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            pairing: try f.string("pairing"), code: try f.string("code"), peer: try f.string("peer"), fingerprint: try f.string("fingerprint"),
            address: try f.optionalString("address"))
    }
}

/// `pair-confirm`: the person compared the codes; waits for both sides' decisions.
public struct PairConfirmRequest: ControlOperation {
    public typealias Result = PeerIdentityInfo
    public static let name = "pair-confirm"
    /// Waits on a peer, a handler or a person: bounded by handoffd, not by the client.
    public var answerWithin: Duration? { nil }
    public var pairing: String
    public var accept: Bool
    /// The code the person read on the other machine: the pairing is confirmed only if it is the
    /// one shown here (error `codes-differ` otherwise).
    public var code: String?
    public init(pairing: String, accept: Bool, code: String? = nil) { (self.pairing, self.accept, self.code) = (pairing, accept, code) }
    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        pairing = try f.string("pairing")
        accept = try f.optionalBool("accept") ?? false
        code = try f.optionalString("code")
    }
    public var arguments: [String: PropertyListValue] {
        var d: [String: PropertyListValue] = ["pairing": .string(pairing), "accept": .bool(accept)]
        if let code { d["code"] = .string(code) }
        return d
    }
}

/// A paired (or unpaired) machine: its name and key fingerprint; after `unpair`, our new
/// advertising key generation.
public struct PeerIdentityInfo: ControlObject, Equatable {
    public var peer: String
    public var fingerprint: String
    public var advertisingGeneration: Int64?

    public init(peer: String, fingerprint: String, advertisingGeneration: Int64? = nil) {
        (self.peer, self.fingerprint, self.advertisingGeneration) = (peer, fingerprint, advertisingGeneration)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("peer", peer)
        w.set("fingerprint", fingerprint)
        w.set("advertisingGeneration", advertisingGeneration)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            peer: try f.string("peer"), fingerprint: try f.string("fingerprint"),
            advertisingGeneration: try f.optionalInteger("advertisingGeneration"))
    }
}

/// `unpair`: forgets a paired machine; it is told, and our advertising key is rotated.
public struct UnpairRequest: ControlOperation {
    public typealias Result = PeerIdentityInfo
    public static let name = "unpair"
    public var peer: String
    public init(peer: String) { self.peer = peer }
    public init(request: ControlRequest) throws(ControlError) { peer = try request.fields.string("peer") }
    public var arguments: [String: PropertyListValue] { ["peer": .string(peer)] }
}

/// `disconnect`: closes the sessions with a peer (troubleshooting; the benchmark's cold trials).
public struct DisconnectRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "disconnect"
    public var peer: String
    public init(peer: String) { self.peer = peer }
    public init(request: ControlRequest) throws(ControlError) { peer = try request.fields.string("peer") }
    public var arguments: [String: PropertyListValue] { ["peer": .string(peer)] }
}

/// `connect`: opens a session with a paired peer now, if none is open (troubleshooting, tests;
/// the daemon dials paired peers by itself).
public struct ConnectRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "connect"
    public var peer: String
    public init(peer: String) { self.peer = peer }
    public init(request: ControlRequest) throws(ControlError) { peer = try request.fields.string("peer") }
    public var arguments: [String: PropertyListValue] { ["peer": .string(peer)] }
}

/// How a typed pairing code is compared: digits only, so "123 456" or "123-456" match "123456".
public enum PairingCodeMatch {
    public static func normalised(_ typed: String) -> String { String(typed.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init)) }
}

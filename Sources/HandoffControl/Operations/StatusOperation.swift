#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// `status`: this machine's handoffd, its advert and counts.
public struct StatusRequest: ControlOperation {
    public typealias Result = DaemonStatus
    public static let name = "status"
    public init() {}
    public init(request: ControlRequest) throws(ControlError) {}
    public var arguments: [String: PropertyListValue] { [:] }
}

public struct DaemonStatus: ControlObject, Equatable {
    public var device: String
    public var fingerprint: String
    public var advertisedAs: String?
    /// "up" or "down".
    public var avahi: String
    /// While `avahi` is "down": why, and where to look.
    public var avahiProblem: String?
    public var port: Int64
    public var peersListed: Int64
    public var peersPresent: Int64
    public var peersPaired: Int64
    public var activities: Int64
    public var scenes: Int64
    /// "ok", or "read-only: why".
    public var sceneStore: String
    public var sceneWritesFailed: Int64
    public var pairingLocked: Bool
    public var uptimeSeconds: Int64
    public var pid: Int64
    /// Unicast DNS-SD: absent when not configured, "ok (SERVER)", or "failing: why".
    public var wideArea: String?
    /// Apps registered as live handlers (`handle`, or RegisterHandler over D-Bus), now.
    public var liveHandlers: Int64?
    /// Continuation streams open now, and where `handoffctl receive` saves files ("" : where it runs).
    public var streams: Int64?
    public var receiveDirectory = ""

    public init(
        device: String, fingerprint: String, advertisedAs: String?, avahi: String, port: Int64, peersListed: Int64,
        peersPresent: Int64, peersPaired: Int64, activities: Int64, scenes: Int64, sceneStore: String,
        sceneWritesFailed: Int64, pairingLocked: Bool, uptimeSeconds: Int64, pid: Int64, wideArea: String? = nil
    ) {
        self.wideArea = wideArea
        (self.device, self.fingerprint, self.advertisedAs, self.avahi, self.port) = (device, fingerprint, advertisedAs, avahi, port)
        (self.peersListed, self.peersPresent, self.peersPaired) = (peersListed, peersPresent, peersPaired)
        (self.activities, self.scenes, self.sceneStore, self.sceneWritesFailed) = (activities, scenes, sceneStore, sceneWritesFailed)
        (self.pairingLocked, self.uptimeSeconds, self.pid) = (pairingLocked, uptimeSeconds, pid)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("device", device)
        w.set("fingerprint", fingerprint)
        w.set("advertisedAs", advertisedAs)
        w.set("avahi", avahi)
        w.set("avahiProblem", avahiProblem)
        w.set("port", port)
        w.set("peersListed", peersListed)
        w.set("peersPresent", peersPresent)
        w.set("peersPaired", peersPaired)
        w.set("activities", activities)
        w.set("scenes", scenes)
        w.set("sceneStore", sceneStore)
        w.set("sceneWritesFailed", sceneWritesFailed)
        w.set("pairingLocked", pairingLocked)
        w.set("uptimeSeconds", uptimeSeconds)
        w.set("pid", pid)
        w.set("wideArea", wideArea)
        w.set("liveHandlers", liveHandlers)
        w.set("streams", streams)
        w.set("receiveDirectory", receiveDirectory)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            device: try f.string("device"), fingerprint: try f.string("fingerprint"), advertisedAs: try f.optionalString("advertisedAs"),
            avahi: try f.string("avahi"), port: try f.integer("port"), peersListed: try f.integer("peersListed"),
            peersPresent: try f.integer("peersPresent"), peersPaired: try f.integer("peersPaired"),
            activities: try f.integer("activities"), scenes: try f.integer("scenes"), sceneStore: try f.string("sceneStore"),
            sceneWritesFailed: try f.integer("sceneWritesFailed"), pairingLocked: try f.bool("pairingLocked"),
            uptimeSeconds: try f.integer("uptimeSeconds"), pid: try f.integer("pid"), wideArea: try f.optionalString("wideArea"))
        avahiProblem = try f.optionalString("avahiProblem")
        liveHandlers = try f.optionalInteger("liveHandlers")
        streams = try f.optionalInteger("streams")
        receiveDirectory = try f.optionalString("receiveDirectory") ?? ""
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// `stream-open`: the app that continued an activity (here, from a peer, or pushed here) asks
/// for a continuation stream with the app that owns it on that peer (docs/STREAMS.md). The answer
/// carries the app's end of the stream: a socket, passed with SCM_RIGHTS on the control socket
/// (with the answer line) or as a `h` on D-Bus.
public struct StreamOpenRequest: ControlOperation {
    public typealias Result = StreamInfo
    public static let name = "stream-open"
    /// Waits on a peer, a handler or a person: bounded by handoffd, not by the client.
    public var answerWithin: Duration? { nil }
    public var activity: UUID
    /// The machine it came from (a name or fingerprint: the `fingerprint` of the `continue`
    /// event), needed only when more than one machine gave this activity id.
    public var peer: String?
    public init(activity: UUID, peer: String? = nil) { (self.activity, self.peer) = (activity, peer) }
    public init(request: ControlRequest) throws(ControlError) {
        activity = try request.fields.uuid("activity")
        peer = try request.fields.optionalString("peer").flatMap { $0.isEmpty ? nil : $0 }
    }
    public var arguments: [String: PropertyListValue] {
        var w = FieldWriter()
        w.set("activity", activity)
        w.set("peer", peer)
        return w.values
    }
}

/// `stream-accept`: the app that owns an activity takes the stream a peer asked for (named by
/// the `streamRequested` event); the answer carries its end, like `stream-open`'s.
public struct StreamAcceptRequest: ControlOperation {
    public typealias Result = StreamInfo
    public static let name = "stream-accept"
    public var stream: String
    public init(stream: String) { self.stream = stream }
    public init(request: ControlRequest) throws(ControlError) { stream = try request.fields.string("stream") }
    public var arguments: [String: PropertyListValue] { ["stream": .string(stream)] }
}

/// `stream-refuse`: the owning app does not take it (the continuing app hears `stream-refused`).
public struct StreamRefuseRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "stream-refuse"
    public var stream: String
    public init(stream: String) { self.stream = stream }
    public init(request: ControlRequest) throws(ControlError) { stream = try request.fields.string("stream") }
    public var arguments: [String: PropertyListValue] { ["stream": .string(stream)] }
}

/// A stream handed to an app. `stream` names it in the `streamClosed` event that ends it.
public struct StreamInfo: ControlObject, Equatable {
    public var stream: String
    public var activity: UUID
    public var peer: String
    /// Which descriptor of the answer is the stream: always 0 (the control socket passes one).
    public var descriptor: Int64

    public init(stream: String, activity: UUID, peer: String, descriptor: Int64 = 0) {
        (self.stream, self.activity, self.peer, self.descriptor) = (stream, activity, peer, descriptor)
    }

    public var object: PropertyListValue {
        .dictionary([
            "stream": .string(stream), "activity": .string(activity.canonicalString), "peer": .string(peer), "descriptor": .integer(descriptor)
        ])
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            stream: try f.string("stream"), activity: try f.uuid("activity"), peer: try f.string("peer"),
            descriptor: try f.optionalInteger("descriptor") ?? 0)
    }
}

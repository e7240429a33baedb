#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// `activities`: this machine's current activities, or (`remote`, `peer`) paired machines'.
public struct ActivitiesRequest: ControlOperation {
    public typealias Result = Listing<ActivityInfo>
    public static let name = "activities"
    public var remote: Bool
    public var peer: String?
    public init(remote: Bool = false, peer: String? = nil) { (self.remote, self.peer) = (remote, peer) }
    // `remote` asks the listed peers side by side: 18 s for one that does not answer, however
    // many (docs/CONTROL.md, "Deadlines"), within the client's usual bound.
    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        remote = try f.optionalBool("remote") ?? false
        peer = try f.optionalString("peer")
    }
    public var arguments: [String: PropertyListValue] {
        var w = FieldWriter()
        if remote { w.set("remote", true) }
        w.set("peer", peer)
        return w.values
    }
}

/// One activity as listed: ours (with its state here) or a peer's (with the peer's name).
public struct ActivityInfo: ControlItem, Equatable {
    public var activity: UUID
    public var type: String
    public var version: Int64
    public var title: String?
    public var scene: UUID?
    /// A peer's: which one.
    public var peer: String?
    /// Ours: whether it expired, may be handed off, and needs saving before it is sent.
    public var expired: Bool?
    public var eligible: Bool?
    public var needsSave: Bool?
    /// When it last changed on its machine (published or updated), by that machine's clock; a
    /// peer's is absent if the peer does not say.
    public var updated: Date?

    public init(
        activity: UUID, type: String, version: Int64, title: String?, scene: UUID?, peer: String? = nil,
        expired: Bool? = nil, eligible: Bool? = nil, needsSave: Bool? = nil, updated: Date? = nil
    ) {
        (self.activity, self.type, self.version, self.title, self.scene) = (activity, type, version, title, scene)
        (self.peer, self.expired, self.eligible, self.needsSave, self.updated) = (peer, expired, eligible, needsSave, updated)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("activity", activity)
        w.set("type", type)
        w.set("version", version)
        w.set("title", title)
        w.set("scene", scene)
        w.set("peer", peer)
        w.set("expired", expired)
        w.set("eligible", eligible)
        w.set("needsSave", needsSave)
        w.set("updated", updated)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            activity: try f.uuid("activity"), type: try f.string("type"), version: try f.integer("version"),
            title: try f.optionalString("title"), scene: try f.optionalUUID("scene"), peer: try f.optionalString("peer"),
            expired: try f.optionalBool("expired"), eligible: try f.optionalBool("eligible"), needsSave: try f.optionalBool("needsSave"),
            updated: try f.optionalDate("updated"))
    }
}

/// `publish`: becomeCurrent, for a scene (one current activity per scene).
public struct PublishRequest: ControlOperation {
    public typealias Result = Published
    public static let name = "publish"
    public var activity: UserActivity
    public var scene: UUID?
    /// The one paired machine (a name or fingerprint) the activity is for: no other lists,
    /// fetches, is pushed or streams it. Nil: every paired machine.
    public var to: String?
    /// Whether the activity outlives the connection that published it. An app's activities end
    /// with it (quit or crash: the person no longer does it there); a one-shot publisher (the
    /// CLI, a script acting for something that is not connected) keeps its own, until resigned.
    public var keep: Bool
    public init(activity: UserActivity, scene: UUID? = nil, to: String? = nil, keep: Bool = false) {
        (self.activity, self.scene, self.to, self.keep) = (activity, scene, to, keep)
    }
    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        activity = try f.activity("activity")
        scene = try f.optionalUUID("scene")
        to = try f.optionalString("to").flatMap { $0.isEmpty ? nil : $0 }
        keep = try f.optionalBool("keep") ?? false
    }
    public var arguments: [String: PropertyListValue] {
        var w = FieldWriter()
        w["activity"] = activity.propertyList
        w.set("scene", scene)
        w.set("to", to)
        if keep { w["keep"] = true }
        return w.values
    }
}

public struct Published: ControlObject, Equatable {
    public var activity: UUID
    public var version: Int64
    public var bytes: Int64
    /// Set when the activity is larger than Handoff works well with.
    public var warning: String?
    /// The fingerprint of the one machine it is for (`to`), as this machine pinned it.
    public var audience: String?

    public init(activity: UUID, version: Int64, bytes: Int64, warning: String?, audience: String? = nil) {
        (self.activity, self.version, self.bytes, self.warning, self.audience) = (activity, version, bytes, warning, audience)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("activity", activity)
        w.set("version", version)
        w.set("bytes", bytes)
        w.set("warning", warning)
        w.set("audience", audience)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            activity: try f.uuid("activity"), version: try f.integer("version"), bytes: try f.integer("bytes"),
            warning: try f.optionalString("warning"), audience: try f.optionalString("audience"))
    }
}

/// `resign` (resignCurrent: peers stop seeing it) or `invalidate` (connected peers are told).
public struct ResignRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "resign"
    public var activity: UUID
    public init(activity: UUID) { self.activity = activity }
    public init(request: ControlRequest) throws(ControlError) { activity = try request.fields.uuid("activity") }
    public var arguments: [String: PropertyListValue] { ["activity": .string(activity.canonicalString)] }
}

public struct InvalidateRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "invalidate"
    public var activity: UUID
    public init(activity: UUID) { self.activity = activity }
    public init(request: ControlRequest) throws(ControlError) { activity = try request.fields.uuid("activity") }
    public var arguments: [String: PropertyListValue] { ["activity": .string(activity.canonicalString)] }
}

/// `refresh`: the app's fresh version, answering a `needsSave` event.
public struct RefreshRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "refresh"
    public var token: String
    public var activity: UserActivity
    public init(token: String, activity: UserActivity) { (self.token, self.activity) = (token, activity) }
    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        token = try f.string("token")
        activity = try f.activity("activity")
    }
    public var arguments: [String: PropertyListValue] { ["token": .string(token), "activity": activity.propertyList] }
}

/// `continue`: fetch a peer's activity, dispatch it here, tell the peer the outcome.
public struct ContinueRequest: ControlOperation {
    public typealias Result = ContinuationReport
    public static let name = "continue"
    /// Waits on a peer, a handler or a person: bounded by handoffd, not by the client.
    public var answerWithin: Duration? { nil }
    public var peer: String
    public var activity: UUID
    public var scene: UUID?
    public init(peer: String, activity: UUID, scene: UUID? = nil) { (self.peer, self.activity, self.scene) = (peer, activity, scene) }
    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        peer = try f.string("peer")
        activity = try f.uuid("activity")
        scene = try f.optionalUUID("scene")
    }
    public var arguments: [String: PropertyListValue] {
        var w = FieldWriter()
        w.set("peer", peer)
        w.set("activity", activity)
        w.set("scene", scene)
        return w.values
    }
}

/// `send`: push one of our current activities to a peer, which dispatches it.
public struct SendRequest: ControlOperation {
    public typealias Result = ContinuationReport
    public static let name = "send"
    /// Waits on a peer, a handler or a person: bounded by handoffd, not by the client.
    public var answerWithin: Duration? { nil }
    public var activity: UUID
    public var to: String
    public init(activity: UUID, to: String) { (self.activity, self.to) = (activity, to) }
    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        activity = try f.uuid("activity")
        to = try f.string("to")
    }
    public var arguments: [String: PropertyListValue] { ["activity": .string(activity.canonicalString), "to": .string(to)] }
}

/// Where a continued or pushed activity went (docs/CONTROL.md: `outcome`, `step`).
public struct ContinuationReport: ControlObject, Equatable {
    /// "continued" or "failed".
    public var outcome: String
    /// A failure's ContinuationFailure code and message.
    public var code: FailureCode?
    public var message: String?
    /// Which dispatch step took it: app, scene, exec, webpage, none.
    public var step: String?
    public var activity: UUID
    public var type: String?
    public var peer: String
    public var handler: String?
    public var scene: UUID?
    /// The activity's targetContentIdentifier, and its title.
    public var content: String?
    public var title: String?
    public var url: String?
    /// `continue` only: whether a session with the peer was open ("open") or made ("new").
    public var session: String?

    public var failed: Bool { outcome == "failed" }

    public init(outcome: String, activity: UUID, peer: String) { (self.outcome, self.activity, self.peer) = (outcome, activity, peer) }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("outcome", outcome)
        w.set("code", code?.rawValue)
        w.set("message", message)
        w.set("step", step)
        w.set("activity", activity)
        w.set("type", type)
        w.set("peer", peer)
        w.set("handler", handler)
        w.set("scene", scene)
        w.set("content", content)
        w.set("title", title)
        w.set("url", url)
        w.set("session", session)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(outcome: try f.string("outcome"), activity: try f.uuid("activity"), peer: try f.string("peer"))
        (code, message, step, type) = (
            try f.optionalString("code").map { FailureCode($0) }, try f.optionalString("message"), try f.optionalString("step"),
            try f.optionalString("type")
        )
        (handler, scene, content, title) = (
            try f.optionalString("handler"), try f.optionalUUID("scene"), try f.optionalString("content"), try f.optionalString("title")
        )
        (url, session) = (try f.optionalString("url"), try f.optionalString("session"))
    }
}

/// `handle`: this connection continues activities of these types (onContinueUserActivity);
/// `continue` events follow, each answered with `handled`.
public struct HandleRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "handle"
    public var types: [String]
    public var handlerName: String?
    /// The window (scene) the handler continues into: of several windows, the one showing the
    /// activity's target content is offered it first, then the one changed last.
    public var scene: UUID?
    public init(types: [String], name: String? = nil, scene: UUID? = nil) { (self.types, self.handlerName, self.scene) = (types, name, scene) }
    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        types = try f.strings("types")
        guard !types.isEmpty else { throw .badArgument(name: "types", reason: "must be a non-empty array of activity types") }
        handlerName = try f.optionalString("name")
        scene = try f.optionalUUID("scene")
    }
    public var arguments: [String: PropertyListValue] {
        var w = FieldWriter()
        w["types"] = .array(types.map(PropertyListValue.string))
        w.set("name", handlerName)
        w.set("scene", scene)
        return w.values
    }
}

/// `handled`: the app's answer to a `continue` event.
public struct HandledRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "handled"
    public var token: String
    public var accepted: Bool
    /// The app's scene (window) that took it, told back in the continuation's report.
    public var scene: UUID?
    public init(token: String, accepted: Bool, scene: UUID? = nil) { (self.token, self.accepted, self.scene) = (token, accepted, scene) }
    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        token = try f.string("token")
        accepted = try f.optionalBool("accepted") ?? false
        scene = try f.optionalUUID("scene")
    }
    public var arguments: [String: PropertyListValue] {
        var w = FieldWriter()
        w.set("token", token)
        w["accepted"] = .bool(accepted)
        w.set("scene", scene)
        return w.values
    }
}

/// `watch`: this connection receives every event.
public struct WatchRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "watch"
    public init() {}
    public init(request: ControlRequest) throws(ControlError) {}
    public var arguments: [String: PropertyListValue] { [:] }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// `scenes`: the scenes (windows) handoffd keeps state for.
public struct ScenesRequest: ControlOperation {
    public typealias Result = Listing<SceneSummary>
    public static let name = "scenes"
    public init() {}
    public init(request: ControlRequest) throws(ControlError) {}
    public var arguments: [String: PropertyListValue] { [:] }
}

public struct SceneSummary: ControlObject, Equatable {
    public var scene: UUID
    public var role: String
    public var created: Date
    public var updated: Date
    /// What the window shows (its app's content identifier), and its current activity's title.
    public var content: String?
    public var title: String?

    public init(scene: UUID, role: String, created: Date, updated: Date, content: String?, title: String?) {
        (self.scene, self.role, self.created, self.updated) = (scene, role, created, updated)
        (self.content, self.title) = (content, title)
    }

    public var object: PropertyListValue { fields.object }

    var fields: FieldWriter {
        var w = FieldWriter()
        w.set("scene", scene)
        w.set("role", role)
        w.set("created", created)
        w.set("updated", updated)
        w.set("content", content)
        w.set("title", title)
        return w
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            scene: try f.uuid("scene"), role: try f.string("role"), created: try f.date("created"), updated: try f.date("updated"),
            content: try f.optionalString("content"), title: try f.optionalString("title"))
    }
}

/// `scene`: one scene in full.
public struct SceneRequest: ControlOperation {
    public typealias Result = SceneDetail
    public static let name = "scene"
    public var scene: UUID
    public init(scene: UUID) { self.scene = scene }
    public init(request: ControlRequest) throws(ControlError) { scene = try request.fields.uuid("scene") }
    public var arguments: [String: PropertyListValue] { ["scene": .string(scene.canonicalString)] }
}

/// A scene with its navigation, storage and current activity; `discarded` if crash protection
/// threw its state away; from `scene-connect`, whether it was restored and its restoration activity.
public struct SceneDetail: ControlObject, Equatable {
    public var summary: SceneSummary
    /// The app's navigation stack, outermost first (content identifiers).
    public var navigation: [String]
    public var storage: PropertyListValue
    public var discarded: Date?
    public var discardReason: String?
    /// The current activity: id, type and title.
    public var currentActivity: (activity: UUID, type: String, title: String)?
    public var restored: Bool?
    public var restorationActivity: UserActivity?

    public init(summary: SceneSummary, navigation: [String], storage: PropertyListValue) {
        (self.summary, self.navigation, self.storage) = (summary, navigation, storage)
    }

    public static func == (a: SceneDetail, b: SceneDetail) -> Bool { a.object == b.object }

    public var object: PropertyListValue {
        var w = summary.fields
        w["navigation"] = .array(navigation.map(PropertyListValue.string))
        w["storage"] = storage
        w.set("discarded", discarded)
        w.set("discardReason", discardReason)
        if let a = currentActivity {
            w["currentActivity"] = ["activity": .string(a.activity.canonicalString), "type": .string(a.type), "title": .string(a.title)]
        }
        w.set("restored", restored)
        if let restorationActivity { w["restorationActivity"] = restorationActivity.propertyList }
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(summary: try SceneSummary(object: object), navigation: try f.strings("navigation"), storage: f.values["storage"] ?? [:])
        discarded = try f.optionalDate("discarded")
        discardReason = try f.optionalString("discardReason")
        if let a = f.values["currentActivity"] {
            let c = try Fields(a)
            currentActivity = (try c.uuid("activity"), try c.string("type"), try c.string("title"))
        }
        restored = try f.optionalBool("restored")
        if f.values["restorationActivity"] != nil { restorationActivity = try f.activity("restorationActivity") }
    }
}

/// `scene-connect`: the scene's saved state (made if new); a restored scene is watched until
/// `scene-launched`.
public struct SceneConnectRequest: ControlOperation {
    public typealias Result = SceneDetail
    public static let name = "scene-connect"
    public var scene: UUID?
    public var role: String?
    public init(scene: UUID? = nil, role: String? = nil) { (self.scene, self.role) = (scene, role) }
    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        scene = try f.optionalUUID("scene")
        role = try f.optionalString("role")
    }
    public var arguments: [String: PropertyListValue] {
        var w = FieldWriter()
        w.set("scene", scene)
        w.set("role", role)
        return w.values
    }
}

/// `scene-update`: changes a scene; answered once the change is durable.
public struct SceneUpdateRequest: ControlOperation {
    public typealias Result = SceneSummary
    public static let name = "scene-update"

    /// One storage value: scene-wide, or bound to a content path. A nil value removes it.
    public struct Value: Sendable, Equatable {
        public var key: String
        public var value: PropertyListValue?
        public var content: String?
        public init(key: String, value: PropertyListValue?, content: String? = nil) { (self.key, self.value, self.content) = (key, value, content) }
    }

    public var scene: UUID
    /// What the window shows now (a content identifier of the app's), "" for nothing; with
    /// `navigation`, the stack that leads there (outermost first). Absent: unchanged.
    public var content: String?
    public var navigation: [String]?
    public var set: [Value]
    /// The whole storage.
    public var storage: PropertyListValue?
    /// The new current activity; `clearActivity` removes it.
    public var activity: UserActivity?
    public var clearActivity: Bool

    public init(
        scene: UUID, content: String? = nil, navigation: [String]? = nil, set: [Value] = [], storage: PropertyListValue? = nil,
        activity: UserActivity? = nil, clearActivity: Bool = false
    ) {
        (self.scene, self.content, self.navigation, self.set, self.storage) = (scene, content, navigation, set, storage)
        (self.activity, self.clearActivity) = (activity, clearActivity)
    }

    public init(request: ControlRequest) throws(ControlError) {
        let f = request.fields
        scene = try f.uuid("scene")
        content = try f.optionalString("content")
        navigation = f.values["navigation"] == nil ? nil : try f.strings("navigation")
        storage = f.values["storage"]
        clearActivity = f.values["activity"]?.stringValue == "none"
        activity = f.values["activity"] == nil || clearActivity ? nil : try f.activity("activity")
        set = []
        for (i, entry) in (f.values["set"]?.arrayValue ?? []).enumerated() {
            guard let d = entry.dictionaryValue, let key = d["key"]?.stringValue else {
                throw .badArgument(name: "set[\(i)]", reason: "must be {key, value, content?}")
            }
            set.append(Value(key: key, value: d["value"], content: d["content"]?.stringValue))
        }
    }

    public var arguments: [String: PropertyListValue] {
        var w = FieldWriter()
        w.set("scene", scene)
        w.set("content", content)
        if let navigation { w["navigation"] = .array(navigation.map(PropertyListValue.string)) }
        if !set.isEmpty {
            w["set"] = .array(
                set.map { v in
                    var d: [String: PropertyListValue] = ["key": .string(v.key)]
                    if let value = v.value { d["value"] = value }
                    if let content = v.content { d["content"] = .string(content) }
                    return .dictionary(d)
                })
        }
        if let storage { w["storage"] = storage }
        if clearActivity { w["activity"] = "none" } else if let activity { w["activity"] = activity.propertyList }
        return w.values
    }
}

/// `scene-launched`, `scene-disconnect`, `scene-destroy`: a scene's lifecycle.
public struct SceneLaunchedRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "scene-launched"
    public var scene: UUID
    public init(scene: UUID) { self.scene = scene }
    public init(request: ControlRequest) throws(ControlError) { scene = try request.fields.uuid("scene") }
    public var arguments: [String: PropertyListValue] { ["scene": .string(scene.canonicalString)] }
}

public struct SceneDisconnectRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "scene-disconnect"
    public var scene: UUID
    public init(scene: UUID) { self.scene = scene }
    public init(request: ControlRequest) throws(ControlError) { scene = try request.fields.uuid("scene") }
    public var arguments: [String: PropertyListValue] { ["scene": .string(scene.canonicalString)] }
}

public struct SceneDestroyRequest: ControlOperation {
    public typealias Result = Done
    public static let name = "scene-destroy"
    public var scene: UUID
    public init(scene: UUID) { self.scene = scene }
    public init(request: ControlRequest) throws(ControlError) { scene = try request.fields.uuid("scene") }
    public var arguments: [String: PropertyListValue] { ["scene": .string(scene.canonicalString)] }
}

/// `delete-saved`: deleteSavedUserActivities.
public struct DeleteSavedRequest: ControlOperation {
    public typealias Result = DeletedSaved
    public static let name = "delete-saved"
    public var ids: [String]
    public init(ids: [String]) { self.ids = ids }
    public init(request: ControlRequest) throws(ControlError) {
        ids = try request.fields.strings("ids")
        guard !ids.isEmpty else { throw .badArgument(name: "ids", reason: "must be a non-empty array of persistent identifiers") }
    }
    public var arguments: [String: PropertyListValue] { ["ids": .array(ids.map(PropertyListValue.string))] }
}

public struct DeletedSaved: ControlObject, Equatable {
    /// How many scenes stopped restoring one of them.
    public var scenes: Int64
    public init(scenes: Int64) { self.scenes = scenes }
    public var object: PropertyListValue { ["scenes": .integer(scenes)] }
    public init(object: PropertyListValue) throws(ControlError) { scenes = try Fields(object).integer("scenes") }
}

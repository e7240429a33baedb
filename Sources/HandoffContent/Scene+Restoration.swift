#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// stateRestorationActivity: a scene as an activity, and the scene rebuilt from it.
///
/// Scenes saved before the scene model knew no app's content hold `tab` (a UUID) and `path`
/// (`b|TAB::c|ITEM` entries) instead of `content` and `navigation`: they are read as the content
/// and navigation they name (the last entry of `path`, else `b|TAB`; the entries themselves), the
/// form Hawk Notes, whose scenes those were, gives its content. The next save writes the new form.
extension Scene {
    /// The type of every scene's restoration activity; local only, never advertised.
    public static let restorationActivityType = try! ActivityType("org.handoffd.sceneRestoration")
    /// The type scenes were saved under before; read, never written.
    static let formerRestorationActivityType = try! ActivityType("org.hawknotes.sceneRestoration")

    private enum Field {
        static let scene = "scene", content = "content", navigation = "navigation", storage = "storage"
        static let prefers = "prefers", canShow = "canShow", current = "current"
        static let formerTab = "tab", formerPath = "path"
    }

    public func restorationActivity() -> UserActivity {
        var activity = UserActivity(type: Scene.restorationActivityType, title: "Scene \(id.canonicalString)")
        var info: [String: PropertyListValue] = [
            Field.scene: .string(id.canonicalString),
            Field.navigation: .array(navigation.map(PropertyListValue.string)),
            Field.storage: storage.propertyList,
            Field.prefers: .array(activationConditions.prefers.sorted().map(PropertyListValue.string)),
            Field.canShow: .array(activationConditions.canShow.sorted().map(PropertyListValue.string))
        ]
        if let content { info[Field.content] = .string(content) }
        if let currentActivity { info[Field.current] = currentActivity.propertyList }
        // None of these keys carries the reserved prefix.
        try! activity.setUserInfo(info)
        activity.targetContentIdentifier = content
        activity.isEligibleForHandoff = false
        return activity
    }

    /// Rebuilds a scene exactly from its restoration activity.
    public init(restoringFrom activity: UserActivity) throws(SceneError) {
        guard activity.type == Scene.restorationActivityType || activity.type == Scene.formerRestorationActivityType else {
            throw .notARestorationActivity(activity.type.rawValue)
        }
        let parsed: Parsed
        do throws(CodecError) { parsed = try Parsed(activity.userInfo) } catch {
            throw .malformedRestoration(error.description)
        }
        self.init(id: parsed.id, activationConditions: parsed.conditions)
        try show(parsed.content, navigation: parsed.navigation)
        storage = parsed.storage
        currentActivity = parsed.current
    }

    private struct Parsed {
        let id: UUID
        let content: String?
        let navigation: [String]
        let storage: SceneStorage
        let conditions: ActivationConditions
        let current: UserActivity?

        init(_ info: [String: PropertyListValue]) throws(CodecError) {
            let f = try FieldReader(.dictionary(info))
            guard let id = UUID(uuidString: try f.string(Field.scene)) else { throw .field(Field.scene, problem: "not a UUID") }
            self.id = id
            if f.fields[Field.formerTab] != nil || f.fields[Field.formerPath] != nil {
                let path = f.fields[Field.formerPath] == nil ? [] : try f.stringArray(Field.formerPath)
                let tab = try f.optionalString(Field.formerTab)
                if tab.flatMap(UUID.init(uuidString:)) == nil, tab != nil { throw .field(Field.formerTab, problem: "not a UUID") }
                if tab == nil, !path.isEmpty { throw .field(Field.formerPath, problem: "a path without a tab") }
                navigation = path
                content = path.last ?? tab.map { "b|" + $0 }
            } else {
                navigation = try f.stringArray(Field.navigation)
                content = try f.optionalString(Field.content)
            }
            storage = try SceneStorage(propertyList: try f.require(Field.storage))
            conditions = ActivationConditions(
                prefers: Set(try f.stringArray(Field.prefers)),
                canShow: Set(try f.stringArray(Field.canShow)))
            current = try f.fields[Field.current].map { (v: PropertyListValue) throws(CodecError) in
                try UserActivity(propertyList: v)
            }
        }
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// stateRestorationActivity: a scene as an activity, and the scene rebuilt from it.
extension Scene {
    /// The type of every scene's restoration activity; local only, never advertised. Its name
    /// predates the scene model's split from Hawk Notes and stays: saved scenes carry it.
    public static let restorationActivityType = try! ActivityType("org.hawknotes.sceneRestoration")

    private enum Field {
        static let scene = "scene", tab = "tab", path = "path", storage = "storage"
        static let prefers = "prefers", canShow = "canShow", current = "current"
    }

    public func restorationActivity() -> UserActivity {
        var activity = UserActivity(type: Scene.restorationActivityType, title: "Scene \(id.canonicalString)")
        var info: [String: PropertyListValue] = [
            Field.scene: .string(id.canonicalString),
            Field.path: .array(
                navigationPath.map { item in
                    switch item {
                    case .item(let c): .string(ContentPath(tabID: selectedTabID!, itemID: c).description)
                    }
                }),
            Field.storage: storage.propertyList,
            Field.prefers: .array(activationConditions.prefers.sorted().map(PropertyListValue.string)),
            Field.canShow: .array(activationConditions.canShow.sorted().map(PropertyListValue.string))
        ]
        if let selectedTabID { info[Field.tab] = .string(selectedTabID.canonicalString) }
        if let currentActivity { info[Field.current] = currentActivity.propertyList }
        // None of these keys carries the reserved prefix.
        try! activity.setUserInfo(info)
        activity.targetContentIdentifier = contentPath?.description
        activity.isEligibleForHandoff = false
        return activity
    }

    /// Rebuilds a scene exactly from its restoration activity. A navigation entry that names a
    /// character of another book than the tab's is refused rather than applied to that tab.
    public init(restoringFrom activity: UserActivity, catalog: any ContentCatalog) throws(SceneError) {
        guard activity.type == Scene.restorationActivityType else {
            throw .notARestorationActivity(activity.type.rawValue)
        }
        let parsed: Parsed
        do throws(CodecError) { parsed = try Parsed(activity.userInfo) } catch {
            throw .malformedRestoration(error.description)
        }
        self.init(id: parsed.id, activationConditions: parsed.conditions)
        var path: [NavigationItem] = []
        for entry in parsed.path {
            guard let tab = parsed.tab else { throw .navigationWithoutTab }
            guard let c = entry.itemID else { throw .malformedRestoration("path entry \(entry) names no character") }
            if entry.tabID != tab { throw .itemNotInTab(item: c, tab: tab) }
            path.append(.item(c))
        }
        try navigate(toTab: parsed.tab, path: path, catalog: catalog)
        storage = parsed.storage
        currentActivity = parsed.current
    }

    private struct Parsed {
        let id: UUID
        let tab: UUID?
        let path: [ContentPath]
        let storage: SceneStorage
        let conditions: ActivationConditions
        let current: UserActivity?

        init(_ info: [String: PropertyListValue]) throws(CodecError) {
            let f = try FieldReader(.dictionary(info))
            guard let id = UUID(uuidString: try f.string(Field.scene)) else { throw .field(Field.scene, problem: "not a UUID") }
            self.id = id
            if let tab = try f.optionalString(Field.tab) {
                guard let t = UUID(uuidString: tab) else { throw .field(Field.tab, problem: "not a UUID") }
                self.tab = t
            } else {
                self.tab = nil
            }
            path = try f.stringArray(Field.path).map { (text: String) throws(CodecError) -> ContentPath in
                do throws(ContentPathError) { return try ContentPath(parsing: text) } catch {
                    throw .field(Field.path, problem: error.description)
                }
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

import HandoffCore

/// @SceneStorage for one scene: property-list values under scene-wide keys and under
/// (key, content) pairs. A value stored for one content identifier is invisible under any other.
public struct SceneStorage: Sendable, Equatable {
    private var sceneValues: [String: PropertyListValue] = [:]
    private var contentValues: [String: [String: PropertyListValue]] = [:]

    public init() {}

    public subscript(key: SceneKey) -> PropertyListValue? {
        get { sceneValues[key.name] }
        set { sceneValues[key.name] = newValue }
    }

    public subscript(key: ContentKey, content: String) -> PropertyListValue? {
        get { contentValues[content]?[key.name] }
        set {
            contentValues[content, default: [:]][key.name] = newValue
            if contentValues[content]?.isEmpty == true { contentValues[content] = nil }
        }
    }

    public var isEmpty: Bool { sceneValues.isEmpty && contentValues.isEmpty }

    /// Content identifiers that hold at least one value.
    public var contents: [String] { contentValues.keys.sorted() }
}

extension SceneStorage {
    private enum Field { static let scene = "scene", content = "content" }

    public var propertyList: PropertyListValue {
        .dictionary([
            Field.scene: .dictionary(sceneValues),
            Field.content: .dictionary(
                Dictionary(
                    uniqueKeysWithValues: contentValues.map {
                        ($0.key, PropertyListValue.dictionary($0.value))
                    }))
        ])
    }

    public init(propertyList: PropertyListValue) throws(CodecError) {
        let f = try FieldReader(propertyList)
        sceneValues = try f.dictionary(Field.scene)
        for (content, values) in try f.dictionary(Field.content) {
            if let problem = ContentIdentifier.problem(content) { throw .field(Field.content, problem: problem) }
            guard let dict = values.dictionaryValue else {
                throw .field(Field.content, problem: "values for \(content) are not a dictionary")
            }
            if !dict.isEmpty { contentValues[content] = dict }
        }
    }
}

import HandoffCore

/// Maps each activity type to the one handler that continues it. Built once; two handlers for one
/// type is a configuration error, never a silent choice.
public struct HandlerRegistry: Sendable {
    private let handlers: [ActivityType: any ActivityHandler]

    public init(_ list: [any ActivityHandler]) throws(HandlerRegistryError) {
        var map: [ActivityType: any ActivityHandler] = [:]
        for handler in list {
            for type in handler.activityTypes {
                if map[type] != nil { throw .duplicateHandler(type.rawValue) }
                map[type] = handler
            }
        }
        handlers = map
    }

    public func handler(for type: ActivityType) -> (any ActivityHandler)? { handlers[type] }

    public var types: [ActivityType] { handlers.keys.sorted() }
}

public enum HandlerRegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    case duplicateHandler(String)

    public var description: String {
        switch self {
        case .duplicateHandler(let type):
            "two handlers are registered for '\(type)'; keep one binding for each activity type"
        }
    }
}

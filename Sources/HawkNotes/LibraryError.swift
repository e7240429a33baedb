/// Why a library file was refused. Each case names the JSON path of the offending value.
public enum LibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case malformed(path: String, reason: String)
    case badUUID(path: String, value: String)
    case badURL(path: String, value: String)
    case duplicateBookID(path: String, id: String)
    case duplicateCharacterID(path: String, id: String)
    case characterInTwoBooks(path: String, id: String, firstPath: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            "cannot read the library file \(file): \(reason); check the 'library' path in the configuration"
        case .malformed(let path, let reason):
            "library \(path): \(reason)"
        case .badUUID(let path, let value):
            "library \(path): '\(value)' is not a UUID; use the form E34747BE-30DC-4DD8-B191-BC6C56B9B9A3"
        case .badURL(let path, let value):
            "library \(path): '\(value)' is not an http(s) URL"
        case .duplicateBookID(let path, let id):
            "library \(path): book id \(id) is used twice; give each book its own id"
        case .duplicateCharacterID(let path, let id):
            "library \(path): character id \(id) is used twice in one book"
        case .characterInTwoBooks(let path, let id, let firstPath):
            "library \(path): character \(id) already appears at \(firstPath); a character belongs to one book"
        }
    }
}

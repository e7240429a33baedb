/// The YAML file's shape. Keys are snake_case; every field is optional so that an absent key takes
/// its default. The shipped config/handoffd.yaml documents each key.
struct ConfigFile: Decodable {
    struct Limits: Decodable {
        var activity_warn_bytes: Int?
        var activity_max_bytes: Int?
        var decode_max_depth: Int?
        var decode_max_values: Int?
        var decode_max_bytes: Int?
    }
    struct ActivityTypeEntry: Decodable {
        var type: String
        var required_keys: [String]?
        var payload: String?
    }

    var device_name: String?
    var library: String?
    var limits: Limits?
    var activity_types: [ActivityTypeEntry]?

    /// Every key the file may hold, by section, for the unknown-key check.
    static let knownKeys: [String: Set<String>] = [
        "": ["device_name", "library", "limits", "activity_types"],
        "limits": ["activity_warn_bytes", "activity_max_bytes", "decode_max_depth", "decode_max_values", "decode_max_bytes"],
        "activity_types[]": ["type", "required_keys", "payload"],
    ]
}

/// The YAML file's shape. Keys are snake_case; every field is optional so that an absent key takes
/// its default. The shipped config/handoffd.yaml documents each key.
struct ConfigFile: Decodable {
    struct Limits: Decodable {
        var activity_warn_bytes: Int?
        var activity_max_bytes: Int?
        var decode_max_depth: Int?
        var decode_max_values: Int?
        var decode_max_bytes: Int?
        var max_frame_bytes: Int?
        var handshake_timeout_seconds: Int?
        var max_unauthenticated: Int?
        var max_unauthenticated_per_source: Int?
        var max_sessions_per_peer: Int?
        var max_sessions: Int?
        var write_deadline_ms: Int?
        var max_control_clients: Int?
        var max_control_line_bytes: Int?
    }
    struct HandlerEntry: Decodable {
        var types: [String]
        var exec: [String]
        var timeout_seconds: Int?
    }
    struct ActivityTypeEntry: Decodable {
        var type: String
        var required_keys: [String]?
        var payload: String?
        var search: Bool?
        var streams: Bool?
    }

    struct Desktop: Decodable {
        var dbus: String?
        var notifications: Bool?
        var notifications_off_for: [String]?
        var search: Bool?
    }

    struct Streams: Decodable {
        var window_bytes: Int?
        var max_per_peer: Int?
        var max_total: Int?
        var resume_seconds: Int?
        var accept_seconds: Int?
        var receive_directory: String?
    }

    struct Clipboard: Decodable {
        var enabled: Bool?
        var refuse_from: [String]?
        var max_bytes: Int?
        var offer_seconds: Int?
    }

    struct WideArea: Decodable {
        var domain: String?
        var server: String?
        var key_file: String?
        var poll_seconds: Int?
    }

    var device_name: String?
    var peer_port: Int?
    var peers: [String]?
    var refuse_pushes_from: [String]?
    var advert_rotation_seconds: Int?
    var advert_rewrite_seconds: Double?
    var wide_area: WideArea?
    var interfaces: [String]?
    var state_directory: String?
    var runtime_directory: String?
    var log_level: String?
    var library: String?
    var handlers: [HandlerEntry]?
    var opener: [String]?
    var scene_opener: [String]?
    var desktop: Desktop?
    var streams: Streams?
    var clipboard: Clipboard?
    var limits: Limits?
    var activity_types: [ActivityTypeEntry]?
    var app_directories: [String]?

    /// The keys whose values are whole numbers (section.key), checked as decimal text first.
    static let integerKeys: Set<String> = [
        "peer_port", "advert_rotation_seconds", "wide_area.poll_seconds", "handlers[].timeout_seconds", "limits.activity_warn_bytes",
        "limits.activity_max_bytes",
        "limits.decode_max_depth", "limits.decode_max_values", "limits.decode_max_bytes", "limits.max_frame_bytes",
        "limits.handshake_timeout_seconds", "limits.max_unauthenticated", "limits.max_unauthenticated_per_source",
        "limits.max_sessions_per_peer", "limits.max_sessions", "limits.write_deadline_ms",
        "limits.max_control_clients", "limits.max_control_line_bytes", "streams.window_bytes", "streams.max_per_peer",
        "streams.max_total", "streams.resume_seconds", "streams.accept_seconds", "clipboard.max_bytes", "clipboard.offer_seconds"
    ]

    /// Every key the file may hold, by section, for the unknown-key check.
    static let knownKeys: [String: Set<String>] = [
        "": [
            "device_name", "peer_port", "peers", "refuse_pushes_from", "advert_rotation_seconds", "advert_rewrite_seconds", "wide_area", "interfaces",
            "state_directory",
            "runtime_directory",
            "log_level",
            "library",
            "limits", "activity_types", "app_directories", "handlers", "opener", "scene_opener", "desktop", "streams", "clipboard"
        ],
        "clipboard": ["enabled", "refuse_from", "max_bytes", "offer_seconds"],
        "streams": ["window_bytes", "max_per_peer", "max_total", "resume_seconds", "accept_seconds", "receive_directory"],
        "desktop": ["dbus", "notifications", "notifications_off_for", "search"],
        "limits": [
            "activity_warn_bytes", "activity_max_bytes", "decode_max_depth", "decode_max_values", "decode_max_bytes",
            "max_frame_bytes", "handshake_timeout_seconds", "max_unauthenticated", "max_unauthenticated_per_source",
            "max_sessions_per_peer", "max_sessions", "write_deadline_ms",
            "max_control_clients", "max_control_line_bytes"
        ],
        "wide_area": ["domain", "server", "key_file", "poll_seconds"],
        "handlers[]": ["types", "exec", "timeout_seconds"],
        "activity_types[]": ["type", "required_keys", "payload", "search", "streams"]
    ]
}

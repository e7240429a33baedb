import HandoffControl
import HandoffCore

/// handoffd's own D-Bus API (docs/DBUS.md): bus name `org.handoffd.Handoff`, object
/// `/org/handoffd/Handoff`, interface `org.handoffd.Handoff1`. Every method is one control
/// operation: its inputs become that operation's fields (`Mapping`), it runs the same code the
/// control socket runs, and its answer is the operation's result. Nothing here is an operation
/// of its own.
public enum HandoffBusAPI {
    public static let busName = "org.handoffd.Handoff"
    public static let objectPath = "/org/handoffd/Handoff"
    public static let interfaceName = "org.handoffd.Handoff1"
    /// Error names are this prefix and the control error's code in UpperCamelCase
    /// (`not-found` -> `org.handoffd.Handoff1.Error.NotFound`).
    public static let errorPrefix = "org.handoffd.Handoff1.Error."

    /// How a method's inputs become a control request, and what its answer looks like.
    public struct Mapping: Sendable {
        public let method: BusMethod
        public let op: String
        /// The control field of each input, in order; an empty string input leaves an optional
        /// field out (D-Bus has no optional arguments).
        public let fields: [Field]
        /// Fields every call of this method sets.
        public let fixed: [String: PropertyListValue]
        public let answer: Answer

        public struct Field: Sendable {
            public let name: String
            public let optional: Bool
            /// An `a{sv}` input whose entries are the request's fields themselves (a change with
            /// many optional parts: `UpdateScene`'s path, values, activity).
            public var spread: Bool { name.hasPrefix(Mapping.spreadName) }
        }

        /// The name of an input that `spread`s its entries starts with it; the rest is the name
        /// introspection shows (`*options`: `options`; `*` alone: `changes`).
        public static let spreadName = "*"

        public enum Answer: Sendable, Equatable {
            case nothing
            /// One object, `a{sv}`.
            case object
            /// A list of objects, `aa{sv}`.
            case list
            /// One object and the descriptor the operation hands over (a stream's socket), `a{sv}h`.
            case objectAndDescriptor
        }

        public func request(_ inputs: [BusValue]) throws(ControlError) -> ControlRequest {
            var arguments = fixed
            for (field, value) in zip(fields, inputs) {
                if field.optional, value.stringValue == "" { continue }
                let converted: PropertyListValue
                do throws(BusValueProblem) { converted = try value.propertyList() } catch {
                    throw .badArgument(name: field.name, reason: error.description)
                }
                if field.spread {
                    // The named inputs and the fixed fields win over an entry of the same name.
                    for (key, entry) in converted.dictionaryValue ?? [:] where arguments[key] == nil && !fields.contains(where: { $0.name == key }) {
                        arguments[key] = entry
                    }
                } else {
                    arguments[field.name] = converted
                }
            }
            return ControlRequest(id: nil, op: op, arguments: arguments)
        }

        /// The operation's result as the method's output values.
        public func reply(_ result: PropertyListValue?) -> [BusValue] {
            switch answer {
            case .nothing: return []
            case .object: return [BusValue(result ?? .dictionary([:]))]
            case .list: return [BusValue.objects(result?.arrayValue ?? [])]
            case .objectAndDescriptor: return [BusValue(result ?? .dictionary([:]))]
            }
        }
    }

    private static func map(
        _ name: String, _ op: String, in inputs: [(String, String, optional: Bool)] = [], fixed: [String: PropertyListValue] = [:],
        answer: Mapping.Answer = .nothing
    ) -> Mapping {
        let out: [BusArgument] =
            switch answer {
            case .nothing: []
            case .object: [BusArgument("result", "a{sv}")]
            case .list: [BusArgument("items", "aa{sv}")]
            case .objectAndDescriptor: [BusArgument("result", "a{sv}"), BusArgument("stream", "h")]
            }
        return Mapping(
            // A spread input is shown as `changes`: a map of the request's own fields.
            method: BusMethod(name, in: inputs.map { BusArgument(Self.shownName($0.0), $0.1) }, out: out), op: op,
            fields: inputs.map { Mapping.Field(name: $0.0, optional: $0.optional) }, fixed: fixed, answer: answer)
    }

    private static func shownName(_ input: String) -> String {
        guard input.hasPrefix(Mapping.spreadName) else { return input }
        return input == Mapping.spreadName ? "changes" : String(input.dropFirst())
    }

    public static let mappings: [Mapping] = [
        map("Status", StatusRequest.name, answer: .object),
        map("ListPeers", PeersRequest.name, answer: .list),
        map("ListActivities", ActivitiesRequest.name, answer: .list),
        map("ListRemoteActivities", ActivitiesRequest.name, in: [("peer", "s", optional: true)], fixed: ["remote": true], answer: .list),
        map("Publish", PublishRequest.name, in: [("activity", "a{sv}", optional: false), ("scene", "s", optional: true)], answer: .object),
        map("PublishFor", PublishRequest.name, in: [("activity", "a{sv}", optional: false), ("to", "s", optional: false)], answer: .object),
        // Options as the socket's fields: scene, to, keep (an activity that outlives the caller's
        // bus name; by default it ends when the caller leaves the bus).
        map(
            "PublishWith", PublishRequest.name,
            in: [("activity", "a{sv}", optional: false), (Mapping.spreadName + "options", "a{sv}", optional: false)],
            answer: .object),
        map("Resign", ResignRequest.name, in: [("activity", "s", optional: false)]),
        map("Invalidate", InvalidateRequest.name, in: [("activity", "s", optional: false)]),
        map("Refresh", RefreshRequest.name, in: [("token", "s", optional: false), ("activity", "a{sv}", optional: false)]),
        map(
            "Continue", ContinueRequest.name,
            in: [("peer", "s", optional: false), ("activity", "s", optional: false), ("scene", "s", optional: true)],
            answer: .object),
        map("Push", SendRequest.name, in: [("activity", "s", optional: false), ("to", "s", optional: false)], answer: .object),
        map(
            "RegisterHandler", HandleRequest.name,
            in: [("types", "as", optional: false), ("name", "s", optional: true), ("scene", "s", optional: true)]),
        map("Handled", HandledRequest.name, in: [("token", "s", optional: false), ("accepted", "b", optional: false)]),
        // With the app's scene that took it (told back in the continuation's report).
        map(
            "HandledIn", HandledRequest.name,
            in: [("token", "s", optional: false), ("accepted", "b", optional: false), ("scene", "s", optional: true)]),
        map("Watch", WatchRequest.name),
        map("ListScenes", ScenesRequest.name, answer: .list),
        map("ShowScene", SceneRequest.name, in: [("scene", "s", optional: false)], answer: .object),
        map(
            "SaveSceneStorage", SceneUpdateRequest.name, in: [("scene", "s", optional: false), ("storage", "a{sv}", optional: false)], answer: .object
        ),
        map("Search", SearchRequest.name, in: [("query", "s", optional: false)], answer: .list),
        map("OpenSearchResult", SearchOpenRequest.name, in: [("result", "s", optional: false)], answer: .object),
        map("OpenStream", StreamOpenRequest.name, in: [("activity", "s", optional: false)], answer: .objectAndDescriptor),
        map(
            "OpenStreamFrom", StreamOpenRequest.name, in: [("activity", "s", optional: false), ("peer", "s", optional: false)],
            answer: .objectAndDescriptor),
        map("AcceptStream", StreamAcceptRequest.name, in: [("stream", "s", optional: false)], answer: .objectAndDescriptor),
        map("RefuseStream", StreamRefuseRequest.name, in: [("stream", "s", optional: false)]),
        // Scenes, as the socket's (docs/CONTROL.md, "Scenes"): the window's connection is the
        // caller's bus name, and its crash-at-launch watch ends with that name.
        map("ConnectScene", SceneConnectRequest.name, in: [("scene", "s", optional: true), ("role", "s", optional: true)], answer: .object),
        map("SceneLaunched", SceneLaunchedRequest.name, in: [("scene", "s", optional: false)]),
        map(
            "UpdateScene", SceneUpdateRequest.name, in: [("scene", "s", optional: false), (Mapping.spreadName, "a{sv}", optional: false)],
            answer: .object),
        map("DisconnectScene", SceneDisconnectRequest.name, in: [("scene", "s", optional: false)]),
        map("DestroyScene", SceneDestroyRequest.name, in: [("scene", "s", optional: false)]),
        map("ListApps", AppsRequest.name, answer: .list),
        map("DeleteSavedActivities", DeleteSavedRequest.name, in: [("ids", "as", optional: false)], answer: .object),
        // The machine's pairings.
        map("ListTrusted", TrustRequest.name, answer: .list),
        map("Pair", PairRequest.name, in: [("peer", "s", optional: false)], answer: .object),
        map("AcceptPairing", PairAcceptRequest.name, in: [("timeout", "x", optional: false)], answer: .object),
        map(
            "ConfirmPairing", PairConfirmRequest.name,
            in: [("pairing", "s", optional: false), ("accept", "b", optional: false), ("code", "s", optional: true)], answer: .object),
        map("Unpair", UnpairRequest.name, in: [("peer", "s", optional: false)], answer: .object),
        map("Connect", ConnectRequest.name, in: [("peer", "s", optional: false)]),
        map("Disconnect", DisconnectRequest.name, in: [("peer", "s", optional: false)]),
        map("RotateAdvert", RotateAdvertRequest.name, answer: .object),
        // The shared clipboard (docs/CLIPBOARD.md).
        map("ClipboardStatus", ClipboardStatusRequest.name, answer: .object),
        map(
            "ClipboardCopy", ClipboardCopyRequest.name,
            in: [("copy", "s", optional: false), ("items", "aa{sv}", optional: false), ("last", "b", optional: false)], answer: .object),
        map(
            "ClipboardPaste", ClipboardPasteRequest.name,
            in: [("peer", "s", optional: true), ("mime", "s", optional: true), ("offset", "x", optional: false)], answer: .object),
        map("SetClipboardEnabled", ClipboardSwitchRequest.name, in: [("enabled", "b", optional: false)]),
        map("ClipboardAgent", ClipboardAgentRequest.name, in: [("backend", "s", optional: true), ("problem", "s", optional: true)])
    ]

    /// `Event(name, fields)`: what `watch` streams, and the `continue` and `needsSave` events of a
    /// handler or an activity's owner, sent to the caller that asked for them alone.
    public static let event = BusSignal("Event", [BusArgument("name", "s"), BusArgument("fields", "a{sv}")])

    public static let interface = BusInterface(name: interfaceName, methods: mappings.map(\.method), signals: [event])

    public static func mapping(_ member: String) -> Mapping? { mappings.first { $0.method.name == member } }

}

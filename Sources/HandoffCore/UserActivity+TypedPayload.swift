#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A payload type may name itself, so that the name on the wire does not depend on the Swift type
/// name in whichever program sends it.
public protocol NamedActivityPayload {
    static var payloadTypeName: String { get }
}

extension UserActivity {
    /// The userInfo key under which the typed payload is stored.
    public static let typedPayloadKey = reservedKeyPrefix + "payload"

    public static func payloadTypeName<T>(of type: T.Type) -> String {
        (type as? NamedActivityPayload.Type)?.payloadTypeName ?? String(describing: type)
    }

    /// The name of the payload type this activity carries, if any.
    public var typedPayloadTypeName: String? {
        userInfo[Self.typedPayloadKey]?.dictionaryValue?["type"]?.stringValue
    }

    /// Stores `value` as JSON inside userInfo, tagged with its type name.
    public mutating func setTypedPayload<T: Encodable>(_ value: T) throws(ActivityError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json: Data
        do { json = try encoder.encode(value) } catch { throw .payloadCorrupt("encoding failed: \(error)") }
        var info = userInfo
        info[Self.typedPayloadKey] = .dictionary([
            "type": .string(Self.payloadTypeName(of: T.self)),
            "json": .data(json)
        ])
        setUserInfoUnchecked(info)
    }

    /// Stores an already-encoded JSON payload under a type name (for tools that read the payload
    /// from a file and do not have the Swift type).
    public mutating func setTypedPayload(json: Data, typeName: String) throws(ActivityError) {
        guard (try? JSONDecoder().decode(AnyJSON.self, from: json)) != nil else {
            throw .payloadCorrupt("the payload is not JSON")
        }
        var info = userInfo
        info[Self.typedPayloadKey] = .dictionary(["type": .string(typeName), "json": .data(json)])
        setUserInfoUnchecked(info)
    }

    /// Decodes the typed payload as `T`. Throws if there is none, if it was stored as another type,
    /// or if its bytes do not decode.
    public func typedPayload<T: Decodable>(_ type: T.Type) throws(ActivityError) -> T {
        guard let entry = userInfo[Self.typedPayloadKey] else { throw .payloadMissing }
        guard let dict = entry.dictionaryValue, let name = dict["type"]?.stringValue,
            let json = dict["json"]?.dataValue
        else { throw .payloadCorrupt("the payload entry is not a {type, json} dictionary") }
        let expected = Self.payloadTypeName(of: T.self)
        guard name == expected else { throw .payloadTypeMismatch(expected: expected, found: name) }
        do {
            return try JSONDecoder().decode(T.self, from: json)
        } catch {
            throw .payloadCorrupt("\(error)")
        }
    }
}

/// Any JSON value, read only to learn that bytes are JSON (JSONSerialization is not in
/// FoundationEssentials).
private struct AnyJSON: Decodable {
    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            while !array.isAtEnd { _ = try array.decode(AnyJSON.self) }
        } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
            for key in object.allKeys { _ = try object.decode(AnyJSON.self, forKey: key) }
        } else {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() { return }
            if (try? value.decode(Bool.self)) != nil { return }
            if (try? value.decode(Double.self)) != nil { return }
            _ = try value.decode(String.self)
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

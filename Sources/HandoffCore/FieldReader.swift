#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads named fields of a decoded dictionary with their expected kinds; every mismatch names the
/// field. Shared by everything that maps a property-list dictionary onto a Swift type.
public struct FieldReader: Sendable {
    public let fields: [String: PropertyListValue]

    public init(_ value: PropertyListValue) throws(CodecError) {
        guard let dict = value.dictionaryValue else {
            throw .field("(top)", problem: "expected dictionary, found \(value.kindName)")
        }
        fields = dict
    }

    public func require(_ key: String) throws(CodecError) -> PropertyListValue {
        guard let v = fields[key] else { throw .field(key, problem: "missing") }
        return v
    }

    func mismatch(_ key: String, _ expected: String, _ v: PropertyListValue) -> CodecError {
        .field(key, problem: "expected \(expected), found \(v.kindName)")
    }

    public func string(_ key: String) throws(CodecError) -> String {
        let v = try require(key)
        guard let s = v.stringValue else { throw mismatch(key, "string", v) }
        return s
    }

    public func optionalString(_ key: String) throws(CodecError) -> String? {
        guard fields[key] != nil else { return nil }
        return try string(key)
    }

    public func integer(_ key: String) throws(CodecError) -> Int64 {
        let v = try require(key)
        guard let i = v.integerValue else { throw mismatch(key, "integer", v) }
        return i
    }

    public func bool(_ key: String) throws(CodecError) -> Bool {
        let v = try require(key)
        guard let b = v.boolValue else { throw mismatch(key, "bool", v) }
        return b
    }

    public func optionalDate(_ key: String) throws(CodecError) -> Date? {
        guard let v = fields[key] else { return nil }
        guard let d = v.dateValue else { throw mismatch(key, "date", v) }
        return d
    }

    public func dictionary(_ key: String) throws(CodecError) -> [String: PropertyListValue] {
        let v = try require(key)
        guard let d = v.dictionaryValue else { throw mismatch(key, "dictionary", v) }
        return d
    }

    public func array(_ key: String) throws(CodecError) -> [PropertyListValue] {
        let v = try require(key)
        guard let a = v.arrayValue else { throw mismatch(key, "array", v) }
        return a
    }

    public func stringArray(_ key: String) throws(CodecError) -> [String] {
        try array(key).map { (item: PropertyListValue) throws(CodecError) -> String in
            guard let s = item.stringValue else { throw mismatch(key, "array of strings", item) }
            // Such strings become set members and are hashed: bounded like dictionary keys.
            if s.utf8.count > CodecLimits.default.maxKeyBytes {
                throw .field(key, problem: "an item is longer than \(CodecLimits.default.maxKeyBytes) bytes")
            }
            return s
        }
    }
}

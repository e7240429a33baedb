/// `Decodable` values from a `YAMLNode`, with YAML 1.1's readings of plain scalars where a
/// type asks for them: any scalar is a string, whole numbers are decimal, booleans are
/// true/false/yes/no/on/off in the three spellings YAML 1.1 allows. Errors are
/// `DecodingError`s with the key path, which the configuration turns into its messages.
struct YAMLNodeDecoder: Decoder {
    let node: YAMLNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ node: YAMLNode, codingPath: [any CodingKey] = []) {
        self.node = node
        self.codingPath = codingPath
    }

    static func decode<T: Decodable>(_ type: T.Type, from node: YAMLNode) throws -> T {
        try T(from: YAMLNodeDecoder(node))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .mapping(let entries, _) = node else {
            throw DecodingError.typeMismatch(
                [String: Any].self, .init(codingPath: codingPath, debugDescription: "a mapping (key: value lines) is expected here"))
        }
        return KeyedDecodingContainer(Keyed(entries: entries, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .sequence(let items, _) = node else {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a list is expected here"))
        }
        return Unkeyed(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(node: node, codingPath: codingPath) }

    struct Index: CodingKey {
        let intValue: Int?
        var stringValue: String { "\(intValue ?? 0)" }
        init(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let entries: [(key: String, value: YAMLNode)]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { entries.compactMap { Key(stringValue: $0.key) } }

        func contains(_ key: Key) -> Bool { entries.contains { $0.key == key.stringValue } }

        private func node(_ key: Key) throws -> YAMLNode {
            guard let n = entries.first(where: { $0.key == key.stringValue })?.value else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for \(key.stringValue)"))
            }
            return n
        }

        func decodeNil(forKey key: Key) throws -> Bool { try node(key).isNull }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try T(from: YAMLNodeDecoder(try node(key), codingPath: codingPath + [key]))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<
            NestedKey
        > {
            try YAMLNodeDecoder(try node(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try YAMLNodeDecoder(try node(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { YAMLNodeDecoder(.mapping(entries, line: 0), codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { YAMLNodeDecoder(try node(key), codingPath: codingPath + [key]) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let items: [YAMLNode]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        private mutating func next() throws -> (YAMLNode, [any CodingKey]) {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "the list has no more items"))
            }
            defer { currentIndex += 1 }
            return (items[currentIndex], codingPath + [Index(intValue: currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex].isNull else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (n, path) = try next()
            return try T(from: YAMLNodeDecoder(n, codingPath: path))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let (n, path) = try next()
            return try YAMLNodeDecoder(n, codingPath: path).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (n, path) = try next()
            return try YAMLNodeDecoder(n, codingPath: path).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (n, path) = try next()
            return YAMLNodeDecoder(n, codingPath: path)
        }
    }

    struct Single: SingleValueDecodingContainer {
        let node: YAMLNode
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { node.isNull }

        private func text<T>(_ type: T.Type) throws -> String {
            guard case .scalar(let s, _, _) = node else {
                throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "a single value is expected here"))
            }
            return s
        }

        private func mismatch<T>(_ type: T.Type, _ text: String) -> DecodingError {
            .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "'\(text)' is not a \(type)"))
        }

        func decode(_ type: String.Type) throws -> String { try text(type) }

        func decode(_ type: Bool.Type) throws -> Bool {
            let t = try text(type)
            switch t {
            case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON": return true
            case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF": return false
            default: throw mismatch(type, t)
            }
        }

        private func number<T: LosslessStringConvertible>(_ type: T.Type) throws -> T {
            let t = try text(type)
            guard let v = T(t) else { throw mismatch(type, t) }
            return v
        }

        func decode(_ type: Double.Type) throws -> Double { try number(type) }
        func decode(_ type: Float.Type) throws -> Float { try number(type) }
        func decode(_ type: Int.Type) throws -> Int { try number(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try number(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try number(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try number(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try number(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try number(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try number(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try number(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try number(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try number(type) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: YAMLNodeDecoder(node, codingPath: codingPath)) }
    }
}

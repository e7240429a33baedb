import CSystemdBus
import HandoffBusAPI

/// Reading and writing message bodies as BusValues, with sd-bus's typed calls (the variadic ones
/// do not cross into Swift). Runs on the bus thread only, like every sd-bus call.
enum BusMessage {
    /// What a message body may hold before we stop reading it: the bus already bounds a message's
    /// size; this bounds the values we build from one (a burst of tiny nested values).
    static let maxValues = 100_000
    static let maxDepth = 32

    static func type(_ c: Character) -> CChar { CChar(bitPattern: c.asciiValue!) }

    /// Every value of the body, from the start.
    static func read(_ m: OpaquePointer) throws(BusFailure) -> [BusValue] {
        var budget = maxValues
        var out: [BusValue] = []
        while let v = try readOne(m, depth: 0, budget: &budget) { out.append(v) }
        return out
    }

    private static func check(_ r: Int32, _ what: String) throws(BusFailure) {
        if r < 0 { throw BusFailure.invalidArguments("the message could not be read (\(what): \(String(cString: strerror(-r))))") }
    }

    /// The next value, or nil at the end of the current container.
    private static func readOne(_ m: OpaquePointer, depth: Int, budget: inout Int) throws(BusFailure) -> BusValue? {
        var t: CChar = 0
        var contentsPointer: UnsafePointer<CChar>?
        let r = sd_bus_message_peek_type(m, &t, &contentsPointer)
        try check(r, "peek")
        if r == 0 { return nil }
        budget -= 1
        guard budget >= 0, depth <= maxDepth else { throw .invalidArguments("the message nests too deep or holds too many values") }
        let contents = contentsPointer.map { String(cString: $0) } ?? ""
        switch UInt8(bitPattern: t) {
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var p: UnsafePointer<CChar>?
            try check(sd_bus_message_read_basic(m, t, &p), "string")
            let s = p.map { String(cString: $0) } ?? ""
            return t == type("s") ? .string(s) : t == type("o") ? .objectPath(s) : .signature(s)
        case UInt8(ascii: "b"):
            var v: Int32 = 0
            try check(sd_bus_message_read_basic(m, t, &v), "boolean")
            return .bool(v != 0)
        case UInt8(ascii: "y"): return .byte(try basic(m, t, UInt8(0)))
        case UInt8(ascii: "n"): return .int16(try basic(m, t, Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(m, t, UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try basic(m, t, Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(m, t, UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(m, t, Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(m, t, UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(m, t, Double(0)))
        case UInt8(ascii: "h"): return .fd(try basic(m, t, Int32(0)))
        case UInt8(ascii: "v"):
            try check(sd_bus_message_enter_container(m, t, contents), "variant")
            guard let inner = try readOne(m, depth: depth + 1, budget: &budget) else { throw .invalidArguments("an empty variant") }
            try check(sd_bus_message_exit_container(m), "variant")
            return .variant(inner)
        case UInt8(ascii: "r"):
            try check(sd_bus_message_enter_container(m, t, contents), "struct")
            var fields: [BusValue] = []
            while let f = try readOne(m, depth: depth + 1, budget: &budget) { fields.append(f) }
            try check(sd_bus_message_exit_container(m), "struct")
            return .structure(fields)
        case UInt8(ascii: "a"):
            try check(sd_bus_message_enter_container(m, t, contents), "array")
            defer { sd_bus_message_exit_container(m) }
            if contents.hasPrefix("{") {
                let inner = String(contents.dropFirst().dropLast())
                guard let parts = BusSignature.split(inner), parts.count == 2 else { throw .invalidArguments("a bad dictionary signature") }
                var entries: [BusValue.Entry] = []
                while true {
                    let r = sd_bus_message_enter_container(m, type("e"), inner)
                    try check(r, "dictionary entry")
                    if r == 0 { break }
                    guard let k = try readOne(m, depth: depth + 1, budget: &budget), let v = try readOne(m, depth: depth + 1, budget: &budget) else {
                        throw .invalidArguments("a dictionary entry without key or value")
                    }
                    entries.append(BusValue.Entry(k, v))
                    try check(sd_bus_message_exit_container(m), "dictionary entry")
                }
                return .dictionary(key: parts[0], value: parts[1], entries)
            }
            var items: [BusValue] = []
            while let item = try readOne(m, depth: depth + 1, budget: &budget) { items.append(item) }
            return .array(element: contents, items)
        default:
            throw .invalidArguments("a value of type '\(Character(UnicodeScalar(UInt8(bitPattern: t))))' is not understood")
        }
    }

    private static func basic<T: BitwiseCopyable>(_ m: OpaquePointer, _ t: CChar, _ initial: T) throws(BusFailure) -> T {
        var v = initial
        try check(sd_bus_message_read_basic(m, t, &v), "value")
        return v
    }

    /// Appends values to a message being built.
    static func append(_ m: OpaquePointer, _ values: [BusValue]) -> Int32 {
        for v in values {
            let r = append(m, v)
            if r < 0 { return r }
        }
        return 0
    }

    private static func append(_ m: OpaquePointer, _ value: BusValue) -> Int32 {
        func basic<T: BitwiseCopyable>(_ c: Character, _ v: T) -> Int32 {
            var v = v
            return sd_bus_message_append_basic(m, type(c), &v)
        }
        func container(_ c: Character, _ contents: String, _ body: () -> Int32) -> Int32 {
            var r = sd_bus_message_open_container(m, type(c), contents)
            if r < 0 { return r }
            r = body()
            if r < 0 { return r }
            return sd_bus_message_close_container(m)
        }
        switch value {
        case .string(let s): return s.withCString { sd_bus_message_append_basic(m, type("s"), $0) }
        case .objectPath(let s): return s.withCString { sd_bus_message_append_basic(m, type("o"), $0) }
        case .signature(let s): return s.withCString { sd_bus_message_append_basic(m, type("g"), $0) }
        case .bool(let b): return basic("b", Int32(b ? 1 : 0))
        case .byte(let v): return basic("y", v)
        case .int16(let v): return basic("n", v)
        case .uint16(let v): return basic("q", v)
        case .int32(let v): return basic("i", v)
        case .uint32(let v): return basic("u", v)
        case .int64(let v): return basic("x", v)
        case .uint64(let v): return basic("t", v)
        case .double(let v): return basic("d", v)
        case .fd(let v): return basic("h", v)
        case .variant(let inner): return container("v", inner.signature) { append(m, inner) }
        case .structure(let fields): return container("r", String(value.signature.dropFirst().dropLast())) { append(m, fields) }
        case .array(let element, let items): return container("a", element) { append(m, items) }
        case .dictionary(let k, let v, let entries):
            return container("a", "{" + k + v + "}") {
                for e in entries {
                    let r = container("e", k + v) { append(m, [e.key, e.value]) }
                    if r < 0 { return r }
                }
                return 0
            }
        }
    }
}

/// A D-Bus error: its name (org.freedesktop.DBus.Error.*, or a service's own) and its message.
public struct BusFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let message: String

    public init(name: String, message: String) { (self.name, self.message) = (name, message) }

    public static func invalidArguments(_ message: String) -> BusFailure {
        BusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    public var description: String { "\(name): \(message)" }
}

/// A D-Bus interface as its introspection data describes it: methods with their arguments, and
/// signals. The interfaces handoffd serves are values of this type, and their introspection XML
/// (docs/dbus/) is written from them, so that what is documented is what runs.
public struct BusInterface: Sendable, Equatable {
    public let name: String
    public let methods: [BusMethod]
    public let signals: [BusSignal]

    public init(name: String, methods: [BusMethod], signals: [BusSignal] = []) {
        (self.name, self.methods, self.signals) = (name, methods, signals)
    }

    public func method(_ member: String) -> BusMethod? { methods.first { $0.name == member } }
}

public struct BusArgument: Sendable, Equatable {
    public let name: String
    public let signature: String
    public init(_ name: String, _ signature: String) { (self.name, self.signature) = (name, signature) }
}

public struct BusMethod: Sendable, Equatable {
    public let name: String
    public let inputs: [BusArgument]
    public let outputs: [BusArgument]

    public init(_ name: String, in inputs: [BusArgument] = [], out outputs: [BusArgument] = []) {
        (self.name, self.inputs, self.outputs) = (name, inputs, outputs)
    }

    public var inputSignature: String { inputs.map(\.signature).joined() }
    public var outputSignature: String { outputs.map(\.signature).joined() }
}

public struct BusSignal: Sendable, Equatable {
    public let name: String
    public let arguments: [BusArgument]
    public init(_ name: String, _ arguments: [BusArgument]) { (self.name, self.arguments) = (name, arguments) }
}

/// Introspection XML (the D-Bus specification's format) of one object.
public enum Introspection {
    public static let doctype =
        #"<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">"#

    /// The standard interfaces every object answers (sd-bus answers Peer; we answer the others).
    public static let standard = [
        BusInterface(name: "org.freedesktop.DBus.Introspectable", methods: [BusMethod("Introspect", out: [BusArgument("xml", "s")])]),
        BusInterface(
            name: "org.freedesktop.DBus.Peer",
            methods: [BusMethod("Ping"), BusMethod("GetMachineId", out: [BusArgument("machine_uuid", "s")])])
    ]

    public static func xml(_ interfaces: [BusInterface], children: [String] = []) -> String {
        var out = doctype + "\n<node>\n"
        for i in interfaces + standard {
            out += " <interface name=\"\(i.name)\">\n"
            for m in i.methods {
                if m.inputs.isEmpty && m.outputs.isEmpty {
                    out += "  <method name=\"\(m.name)\"/>\n"
                    continue
                }
                out += "  <method name=\"\(m.name)\">\n"
                for a in m.inputs { out += "   <arg name=\"\(a.name)\" type=\"\(a.signature)\" direction=\"in\"/>\n" }
                for a in m.outputs { out += "   <arg name=\"\(a.name)\" type=\"\(a.signature)\" direction=\"out\"/>\n" }
                out += "  </method>\n"
            }
            for s in i.signals {
                out += "  <signal name=\"\(s.name)\">\n"
                for a in s.arguments { out += "   <arg name=\"\(a.name)\" type=\"\(a.signature)\"/>\n" }
                out += "  </signal>\n"
            }
            out += " </interface>\n"
        }
        for c in children { out += " <node name=\"\(c)\"/>\n" }
        return out + "</node>\n"
    }
}

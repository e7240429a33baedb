import HandoffDiscovery

/// One advert as records of a DNS zone (RFC 6763 over unicast DNS): a PTR from the service type
/// to the instance, the instance's SRV and TXT, and the SRV target's addresses. Written as
/// zone-file text, which ldns parses into records: no DNS wire format is made here.
public struct ZoneAdvert: Sendable, Equatable {
    public let zone: String
    public let serviceType: String
    public let instance: String
    /// The SRV target's label under the zone (random per rotation, like the link's).
    public let host: String
    public let port: UInt16
    public let txt: TXTRecord
    public let addresses: [String]
    public let ttl: UInt32

    public init(
        zone: String, serviceType: String = "_handoff._tcp", instance: String, host: String, port: UInt16, txt: TXTRecord,
        addresses: [String], ttl: UInt32 = 120
    ) {
        self.zone = DNSText.absolute(zone)
        self.serviceType = serviceType
        (self.instance, self.host, self.port, self.txt, self.addresses, self.ttl) = (instance, host, port, txt, addresses, ttl)
    }

    /// `_handoff._tcp.zone.`
    public var serviceName: String { "\(serviceType).\(zone)" }
    public var instanceName: String { "\(DNSText.label(instance)).\(serviceName)" }
    public var hostName: String { "\(DNSText.label(host)).\(zone)" }

    /// Every record, as zone-file lines.
    public var records: [String] {
        [
            "\(serviceName) \(ttl) IN PTR \(instanceName)",
            "\(instanceName) \(ttl) IN SRV 0 0 \(port) \(hostName)",
            "\(instanceName) \(ttl) IN TXT \(DNSText.txt(txt))"
        ] + addresses.map { "\(hostName) \(ttl) IN \($0.contains(":") ? "AAAA" : "A") \($0)" }
    }

    /// The deletions that make the zone hold exactly `records` for our names: the instance's and
    /// the host's record sets go, whatever an earlier run left there.
    public var replacing: [RecordDeletion] { [.name(instanceName), .name(hostName)] }

    /// The deletions that take this advert out of the zone, and nothing of anyone else's.
    public var removal: [RecordDeletion] { Self.removal(service: serviceName, instance: instanceName, host: hostName) }

    public static func removal(service: String, instance: String, host: String) -> [RecordDeletion] {
        [.record("\(service) 0 IN PTR \(instance)"), .name(instance), .name(host)]
    }
}

/// One deletion in a dynamic update (RFC 2136, 2.5).
public enum RecordDeletion: Sendable, Equatable {
    /// One record, given as zone-file text (sent with class NONE).
    case record(String)
    /// Every record set at a name (class ANY, type ANY).
    case name(String)
}

/// Zone-file text for names and TXT strings, and back from what ldns prints.
public enum DNSText {
    /// The name with a final dot.
    public static func absolute(_ name: String) -> String { name.hasSuffix(".") ? name : name + "." }

    /// One label, escaped for zone-file text: letters, digits, '-' and '_' as they are, every
    /// other byte as \DDD (a dot or a space inside an instance name stays part of the label).
    public static func label(_ text: String) -> String {
        var out = ""
        for b in text.utf8 {
            let c = Character(Unicode.Scalar(b))
            if b < 0x80, c.isLetter || c.isNumber || c == "-" || c == "_" { out.append(c) } else { out += Self.decimalEscape(b) }
        }
        return out
    }

    /// `\DDD`: a byte as three decimal digits (RFC 1035's zone-file escape).
    static func decimalEscape(_ b: UInt8) -> String {
        let digits = String(b)
        return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
    }

    /// The TXT record's strings, each quoted, with `"` and `\` and every byte outside printable
    /// ASCII escaped.
    public static func txt(_ record: TXTRecord) -> String {
        record.strings.map { bytes in
            var out = "\""
            for b in bytes {
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += "\\" + String(Character(Unicode.Scalar(b)))
                case 0x20...0x7E: out.append(Character(Unicode.Scalar(b)))
                default: out += Self.decimalEscape(b)
                }
            }
            return out + "\""
        }.joined(separator: " ")
    }

    /// The bytes of a presentation-format string (as ldns prints a TXT string or a label):
    /// surrounding quotes dropped, \X and \DDD unescaped.
    public static func bytes(_ text: String) -> [UInt8] {
        var s = Array(text.utf8)
        if s.count >= 2, s.first == UInt8(ascii: "\""), s.last == UInt8(ascii: "\"") { s = Array(s.dropFirst().dropLast()) }
        var out: [UInt8] = []
        var i = 0
        while i < s.count {
            if s[i] == UInt8(ascii: "\\"), i + 1 < s.count {
                if i + 3 < s.count, let n = Int(String(decoding: s[(i + 1)...(i + 3)], as: UTF8.self)), (0...255).contains(n),
                    s[(i + 1)...(i + 3)].allSatisfy({ (0x30...0x39).contains($0) })
                {
                    out.append(UInt8(n))
                    i += 4
                } else {
                    out.append(s[i + 1])
                    i += 2
                }
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return out
    }

    /// The first label of a name as ldns prints it (`inst\032name._handoff._tcp.zone.`), unescaped,
    /// if the rest is `suffix`.
    public static func firstLabel(of name: String, under suffix: String) -> String? {
        let n = absolute(name).lowercased(), tail = "." + absolute(suffix).lowercased()
        guard n.hasSuffix(tail) else { return nil }
        let label = String(absolute(name).dropLast(tail.count))
        guard !label.isEmpty else { return nil }
        // A '.' not escaped would be another label.
        var escaped = false
        for c in label {
            if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "." { return nil }
        }
        return String(decoding: bytes(label), as: UTF8.self)
    }
}

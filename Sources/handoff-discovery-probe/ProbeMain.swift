import Foundation
import HandoffAvahi
import HandoffDiscovery
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Drives HandoffAvahi from stdin and prints every event as a JSON line stamped with
/// CLOCK_MONOTONIC nanoseconds (comparable across network namespaces on one kernel).
///
/// Commands, one per line:  publish NAME PORT [key=value ...] | txt [key=value ...] | withdraw |
/// peers | quit
@main
struct ProbeMain {
    static func main() async {
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = Logger.Level(rawValue: ProcessInfo.processInfo.environment["HANDOFF_LOG_LEVEL"] ?? "info") ?? .info
            return h
        }
        let discovery: AvahiDiscovery
        do { discovery = try AvahiDiscovery() } catch {
            Output.line(["error": "\(error)"])
            exit(1)
        }
        Output.line(["ready": true])
        let reader = Thread { CommandReader.run(discovery) }
        reader.start()
        // The probe stands for a daemon paired with every machine it sees: it follows each
        // resolved instance's TXT changes (a daemon follows only its paired peers' adverts).
        var followed: Set<String> = []
        for await event in discovery.events {
            switch event {
            case .peerAppeared(let peer): followed.insert(peer.name)
            case .peerRemoved(let name): followed.remove(name)
            default: break
            }
            discovery.follow(followed)
            Output.line(Output.describe(event))
        }
        Output.line(["stopped": true])
        exit(0)
    }
}

enum CommandReader {
    static func run(_ discovery: AvahiDiscovery) {
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            do {
                switch command {
                case "publish":
                    guard words.count >= 3, let port = UInt16(words[2]) else { throw ProbeError("usage: publish NAME PORT [k=v ...]") }
                    let advert = try ServiceAdvert(
                        instanceName: words[1].replacingOccurrences(of: "_", with: " "), port: port,
                        txt: try txt(Array(words.dropFirst(3))))
                    Output.line(["command": "publish", "name": advert.instanceName])
                    try discovery.publish(advert)
                case "txt":
                    let record = try txt(Array(words.dropFirst()))
                    Output.line(["command": "txt"])
                    try discovery.updateTXT(record)
                case "withdraw":
                    Output.line(["command": "withdraw"])
                    discovery.withdraw()
                case "peers":
                    Output.line(["peers": discovery.peers.map(Output.describe)])
                case "quit":
                    Output.line(["command": "quit"])
                    discovery.shutdown()
                    return
                default:
                    throw ProbeError("unknown command \(command)")
                }
            } catch {
                Output.line(["command": command, "error": "\(error)"])
            }
        }
        discovery.shutdown()
    }

    static func txt(_ pairs: [String]) throws -> TXTRecord {
        try TXTRecord(
            pairs.map { p in
                let parts = p.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2, parts[1].hasPrefix("repeat:"), let n = Int(parts[1].dropFirst(7)) {
                    return TXTRecord.Entry(parts[0], String(repeating: "x", count: n))
                }
                return TXTRecord.Entry(parts[0], parts.count == 2 ? parts[1] : "")
            })
    }
}

struct ProbeError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

enum Output {
    private static let lock = NSLock()

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func line(_ fields: [String: Any]) {
        var f = fields
        f["t"] = now()
        guard let data = try? JSONSerialization.data(withJSONObject: f, options: [.sortedKeys]) else { return }
        lock.withLock {
            FileHandle.standardOutput.write(data + Data([0x0A]))
        }
    }

    static func describe(_ peer: DiscoveredPeer) -> [String: Any] {
        var txt: [String: String] = [:]
        for e in peer.txt.entries { txt[e.key] = e.value.map { String(decoding: $0, as: UTF8.self) } ?? "" }
        return [
            "name": peer.name, "host": peer.hostName, "port": Int(peer.port),
            "addresses": peer.addresses.map(\.description), "txt": txt
        ]
    }

    static func describe(_ event: DiscoveryEvent) -> [String: Any] {
        switch event {
        case .avahiUp: ["event": "avahiUp"]
        case .avahiDown(let reason): ["event": "avahiDown", "reason": reason]
        case .published(let name): ["event": "published", "name": name]
        case .peerAppeared(let p): ["event": "peerAppeared", "peer": describe(p)]
        case .peerChanged(let p): ["event": "peerChanged", "peer": describe(p)]
        case .peerRemoved(let name): ["event": "peerRemoved", "name": name]
        case .foreignService(let name, let reason): ["event": "foreignService", "name": name, "reason": reason]
        case .failure(let error): ["event": "failure", "error": "\(error)"]
        case .wideArea(let status): ["event": "wideArea", "status": "\(status)"]
        }
    }
}

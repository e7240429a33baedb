import Foundation
import HandoffClient
import HandoffCore

/// Throughput at load: requests kept in flight for a fixed time, each answer followed
/// at once by the next request, and the latency of each at that load.
///   handoff-continue-bench throughput SOCKET PEER ACTIVITY SECONDS IN-FLIGHT
///     continues of PEER's activity over one control connection (one client), so over one
///     session with the peer;
///   handoff-continue-bench control SOCKET CLIENTS SECONDS IN-FLIGHT
///     `activities` and `status` in turn from CLIENTS connections at once.
enum ThroughputBench {
    static func continues(socket: String, peer: String, activity: String, seconds: Double, inFlight: Int) async throws {
        let client = try await HandoffClient.connect(socketPath: socket)
        let args: [String: PropertyListValue] = ["peer": .string(peer), "activity": .string(activity)]
        _ = try await client.request("continue", args)  // warm-up: the session is open
        let (count, samples) = try await load(clients: [client], inFlight: inFlight, seconds: seconds) { client, _ in
            let result = try await client.request("continue", args)
            guard result?.dictionaryValue?["outcome"]?.stringValue == "continued" else {
                throw BenchError("a continue failed at load: \(String(describing: result))")
            }
        }
        await client.close()
        print(String(format: "continues over one session, one client, %d in flight: %.0f per second", inFlight, Double(count) / seconds))
        ContinueBench.report("  latency at that load", samples, unit: "ms")
    }

    static func control(socket: String, clients n: Int, seconds: Double, inFlight: Int) async throws {
        var clients: [HandoffClient] = []
        for _ in 0..<n { clients.append(try await HandoffClient.connect(socketPath: socket)) }
        let (count, samples) = try await load(clients: clients, inFlight: inFlight, seconds: seconds) { client, i in
            _ = try await client.request(i % 2 == 0 ? "activities" : "status")
        }
        for c in clients { await c.close() }
        print(String(format: "control operations from %d clients, %d in flight each: %.0f per second", n, inFlight, Double(count) / seconds))
        ContinueBench.report("  latency at that load", samples, unit: "ms")
    }

    /// `inFlight` loops per client, each sending its next request when the last one is answered,
    /// until `seconds` have passed: how many were answered, and each one's latency in ms.
    static func load(
        clients: [HandoffClient], inFlight: Int, seconds: Double,
        _ one: @escaping @Sendable (HandoffClient, Int) async throws -> Void
    ) async throws -> (Int, [Double]) {
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        return try await withThrowingTaskGroup(of: [Double].self) { group in
            for client in clients {
                for _ in 0..<inFlight {
                    group.addTask {
                        var samples: [Double] = []
                        var i = 0
                        while ContinuousClock.now < end {
                            let start = ContinuousClock.now
                            try await one(client, i)
                            samples.append(ContinueBench.millis(ContinuousClock.now - start))
                            i += 1
                        }
                        return samples
                    }
                }
            }
            var all: [Double] = []
            for try await s in group { all += s }
            return (all.count, all)
        }
    }
}

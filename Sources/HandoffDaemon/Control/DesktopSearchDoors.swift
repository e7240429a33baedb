#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffBus
import HandoffBusAPI
import HandoffContent
import HandoffControl
import HandoffCore

/// GNOME Shell's search provider and KRunner's runner on the D-Bus door: each call one `search`
/// (or `search-open`) operation, performed through the door as the caller, like every method.
extension BusDoor {
    func serveDesktopSearch() async throws(BusFailure) {
        try await serve(path: DesktopSearch.gnomePath, interfaces: [DesktopSearch.gnome]) { [self] r in
            Task { answer(r, await gnome(r)) }
        }
        try await serve(path: DesktopSearch.krunnerPath, interfaces: [DesktopSearch.krunner]) { [self] r in
            Task { answer(r, await krunner(r)) }
        }
    }

    private func hits(_ query: String, for r: BusRequest) async -> Result<[SearchHit], BusFailure> {
        // A desktop asks at every key press, including for one letter and for nothing.
        guard !SearchQuery(query).isEmpty else { return .success([]) }
        let request = SearchRequest(query: String(query.prefix(1024)), limit: DesktopSearch.maxResults)
        switch await perform(ControlRequest(id: nil, op: SearchRequest.name, arguments: request.arguments), for: r) {
        case .success(let value):
            do throws(ControlError) { return .success(try Listing<SearchHit>(propertyList: value).items) } catch {
                return .failure(Self.failure(error))
            }
        case .failure(let error): return .failure(Self.failure(error))
        }
    }

    private func open(_ id: String, for r: BusRequest) async -> Result<[BusValue], BusFailure> {
        switch await perform(ControlRequest(id: nil, op: SearchOpenRequest.name, arguments: SearchOpenRequest(result: id).arguments), for: r) {
        case .success: return .success([])
        case .failure(let error): return .failure(Self.failure(error))
        }
    }

    private func gnome(_ r: BusRequest) async -> Result<[BusValue], BusFailure> {
        guard case .success(let a) = r.arguments else { return .success([]) }
        func ids(_ terms: BusValue) async -> Result<[BusValue], BusFailure> {
            guard case .array(_, let t) = terms else { return .success([.array(element: "s", [])]) }
            return await hits(DesktopSearch.query(t), for: r).map { h in
                remember(h)
                return [.array(element: "s", h.map { .string($0.id) })]
            }
        }
        switch r.member {
        case "GetInitialResultSet": return await ids(a[0])
        // The shell narrows what it showed; searching again is as cheap and sees what changed.
        case "GetSubsearchResultSet": return await ids(a[1])
        case "GetResultMetas":
            guard case .array(_, let wanted) = a[0] else { return .success([.array(element: "a{sv}", [])]) }
            // The shell asks for the metas of results it was just given: kept from that answer.
            let known = recalled(wanted.compactMap(\.stringValue))
            let now = Date()
            return .success([.array(element: "a{sv}", known.map { DesktopSearch.gnomeMeta($0, now: now) })])
        case "ActivateResult": return await open(a[0].stringValue ?? "", for: r)
        default: return .success([])  // LaunchSearch: there is no app window to show a search in.
        }
    }

    private func krunner(_ r: BusRequest) async -> Result<[BusValue], BusFailure> {
        guard case .success(let a) = r.arguments else { return .success([]) }
        switch r.member {
        case "Actions": return .success([.array(element: "(sss)", [])])
        case "Match":
            return await hits(a[0].stringValue ?? "", for: r).map { h in
                remember(h)
                let now = Date()
                return [.array(element: "(sssida{sv})", h.enumerated().map { DesktopSearch.krunnerMatch($1, position: $0, of: h.count, now: now) })]
            }
        default: return await open(a[0].stringValue ?? "", for: r)  // Run
        }
    }
}

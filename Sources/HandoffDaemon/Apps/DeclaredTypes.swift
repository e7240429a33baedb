import HandoffAdvert
import HandoffCore
import NIOConcurrencyHelpers

/// The activity types this machine declares now: built in, the installed apps', the
/// configuration's. Apps come and go while handoffd runs (`Apps` reads their files again), so
/// whoever checks a type asks here each time; a lock held for a copy, a few per publish or push.
public final class DeclaredTypes: Sendable {
    private struct State {
        var types: DeclaredActivityTypes
        /// The types' advert hashes (peers' adverts name types by them).
        var hashes: Set<[UInt8]>
    }

    private let state: NIOLockedValueBox<State>

    public init(_ types: DeclaredActivityTypes) { state = NIOLockedValueBox(Self.state(types)) }

    private static func state(_ types: DeclaredActivityTypes) -> State {
        State(types: types, hashes: Set(types.types.map { AdvertTXT.typeHash($0.rawValue) }))
    }

    public var current: DeclaredActivityTypes { state.withLockedValue { $0.types } }
    public var names: [String] { current.types.map(\.rawValue) }
    var hashes: Set<[UInt8]> { state.withLockedValue { $0.hashes } }

    func replace(_ types: DeclaredActivityTypes) { state.withLockedValue { $0 = Self.state(types) } }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffConfig
import HandoffCore

/// Starting an app to continue an activity, as Apple's system launches the app that declared the
/// type: its command, left running (a window stays open as long as the person uses it), or its
/// D-Bus name activated on the session bus. The app then registers for its types, and the
/// continuation is offered to it (Dispatcher).
extension Apps {
    /// How long a started app has to register for the type.
    static let registerWithin: Duration = .seconds(10)

    /// Activates a D-Bus name (StartServiceByName); set once the bus door is up. Nil: no bus.
    public typealias BusActivator = @Sendable (String) async -> String?

    public func setBusActivator(_ activate: @escaping BusActivator) { activator.withLockedValue { $0 = activate } }

    /// The app that declares `type` and says how to start it.
    func launchable(for type: ActivityType) -> AppDeclaration? {
        guard let app = installed.app(declaring: type), app.launch != nil else { return nil }
        return app
    }

    /// Starts `app`; nil once it is starting, else why it could not be.
    func launch(_ app: AppDeclaration, for requester: PeerID?) async -> String? {
        switch app.launch {
        case .command(let argv):
            // The shell that starts it ends at once: the command runner waits for nothing. The app
            // finds this handoffd through HANDOFF_SOCKET, as every client does.
            let detached = ["/bin/sh", "-c", "\"$@\" </dev/null >/dev/null 2>&1 &", "sh", "/usr/bin/env", "HANDOFF_SOCKET=" + controlSocket] + argv
            let result = await CommandRunner.run(detached, timeout: .seconds(10), for: requester)
            return result.succeeded ? nil : "\(argv[0]) \(result)"
        case .busName(let name):
            guard let activate = activator.withLockedValue({ $0 }) else {
                return "it is started by D-Bus activation (\(name)) and handoffd has no session bus"
            }
            return await activate(name)
        case nil: return "its declaration says no way to start it"
        }
    }
}

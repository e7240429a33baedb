import Foundation
import HandoffCore
import HandoffContent
import HandoffDiscovery

/// handoffd's settings after loading and checking the configuration file.
public struct HandoffConfiguration: Sendable {
    /// The name this machine advertises and peers show; the host name unless configured.
    public var deviceName: String
    /// Where the library is read from; nil means the shipped library.
    public var libraryPath: String?
    public var sizePolicy: ActivitySizePolicy
    public var codecLimits: CodecLimits
    /// The declared activity types; the Hawk Notes types when the file declares none.
    public var activityTypes: DeclaredActivityTypes

    /// Built-in defaults: what handoffd runs with when there is no configuration file.
    public init() {
        deviceName = Self.defaultDeviceName
        libraryPath = nil
        sizePolicy = .default
        codecLimits = .default
        // The built-in declarations are distinct; HandoffConfigTests checks it.
        activityTypes = try! DeclaredActivityTypes(HawkNotes.declarations)
    }
}

extension HandoffConfiguration {
    /// The host name, cut to a valid instance name (63 bytes of whole characters).
    public static var defaultDeviceName: String {
        var name = ProcessInfo.processInfo.hostName
        if name.isEmpty { name = "handoffd" }
        while name.utf8.count > ServiceAdvert.maxNameBytes { name.removeLast() }
        return name
    }
}

import HandoffCore
/// What this machine advertises: one `_handoff._tcp` instance.
public struct ServiceAdvert: Sendable, Equatable {
    public static let maxNameBytes = 63

    public let instanceName: String
    public let port: UInt16
    public var txt: TXTRecord
    /// The SRV record's target, a name under `.local` published with this machine's addresses
    /// (a random one per rotation, so that the advert does not point at the system host name);
    /// nil for the system host name.
    public let hostName: String?
    /// What a collision does: take mDNS's alternative name (`alice #2`: right for a name a person
    /// reads), or withdraw and leave a new name to the caller (`ServiceAdvertiser.collided`).
    public var onCollision = CollisionPolicy.rename

    public enum CollisionPolicy: Sendable, Equatable { case rename, withdraw }

    /// The name must be 1-63 bytes of UTF-8 without control characters (a DNS label).
    public init(instanceName: String, port: UInt16, txt: TXTRecord = .empty, hostName: String? = nil) throws(DiscoveryError) {
        try Self.check(name: instanceName)
        self.instanceName = instanceName
        self.port = port
        self.txt = txt
        self.hostName = hostName
    }

    public static func check(name: String) throws(DiscoveryError) {
        if let why = DeviceName.problem(name) { throw .invalidInstanceName(name, reason: why) }
    }
}

/// What a peer declared in its `hello`: its device name and the activity types it continues. A
/// type it did not declare is not offered to it (not listed, not pushed).
public struct PeerCapabilities: Sendable, Equatable {
    public let device: String
    public let types: Set<String>

    public init(device: String, types: Set<String>) {
        self.device = device
        self.types = types
    }

    public init(_ hello: Hello) { self.init(device: hello.device, types: Set(hello.types)) }

    /// The activities it may see: those of the types it declared.
    public func offered(_ items: [ActivitySummary]) -> [ActivitySummary] { items.filter { types.contains($0.type) } }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// `rotate-advert`: gives this machine's advert a new random name and new sealed material now
/// (it rotates by itself every advert_rotation_seconds, at every unpair and address change).
/// For troubleshooting, and for the benchmark that times how fast paired peers follow.
public struct RotateAdvertRequest: ControlOperation {
    public typealias Result = AdvertRotated
    public static let name = "rotate-advert"
    public init() {}
    public init(request: ControlRequest) throws(ControlError) {}
    public var arguments: [String: PropertyListValue] { [:] }
}

public struct AdvertRotated: ControlObject, Equatable {
    /// The advert's new instance name.
    public var name: String

    public init(name: String) { self.name = name }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("name", name)
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) { self.init(name: try Fields(object).string("name")) }
}

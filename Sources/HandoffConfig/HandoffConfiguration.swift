import Foundation
import HandoffCore
import HandoffContent

/// handoffd's settings after loading and checking the configuration file.
public struct HandoffConfiguration: Sendable {
    /// Where the library is read from; nil means the shipped library.
    public var libraryPath: String?
    public var sizePolicy: ActivitySizePolicy
    public var codecLimits: CodecLimits
    /// The declared activity types; the Hawk Notes types when the file declares none.
    public var activityTypes: DeclaredActivityTypes

    /// Built-in defaults: what handoffd runs with when there is no configuration file.
    public init() {
        libraryPath = nil
        sizePolicy = .default
        codecLimits = .default
        // The built-in declarations are distinct; HandoffConfigTests checks it.
        activityTypes = try! DeclaredActivityTypes(HawkNotes.declarations)
    }
}

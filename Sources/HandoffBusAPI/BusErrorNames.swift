import HandoffCore

/// The D-Bus error names handoffd answers with: one per control failure code it documents, and
/// `Failed` for any other. A code can come from another machine (a continuation's failure, a
/// stream's reset), and a D-Bus error name is not free text: one that breaks its rules (a letter
/// outside ASCII, more than 255 bytes) makes dbus-daemon drop the whole connection, and the
/// desktop API with it.
extension HandoffBusAPI {
    /// The D-Bus error name of a control error's code: `not-found` ->
    /// `org.handoffd.Handoff1.Error.NotFound`; a code handoffd does not send (`FailureCode.isKnown`) -> `...Error.Failed`.
    public static func errorName(_ code: FailureCode) -> String {
        guard code.isKnown else { return errorPrefix + "Failed" }
        let camel = code.rawValue.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return errorPrefix + camel
    }
}

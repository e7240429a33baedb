/// The D-Bus error names handoffd answers with: one per control failure code it documents, and
/// `Failed` for any other. A code can come from another machine (a continuation's failure, a
/// stream's reset), and a D-Bus error name is not free text: one that breaks its rules (a letter
/// outside ASCII, more than 255 bytes) makes dbus-daemon drop the whole connection, and the
/// desktop API with it.
extension HandoffBusAPI {
    /// Every code named in docs/CONTROL.md, docs/STREAMS.md and docs/DBUS.md.
    public static let knownErrorCodes: Set<String> = [
        "ambiguous-origin", "ambiguous-peer", "bad-argument", "bad-field", "bad-response", "bad-scene-state", "busy", "codes-differ",
        "connection-used", "content-not-found", "expired", "failed", "handler-failed", "line-too-long", "missing-op",
        "missing-required-key", "needs-descriptor", "no-answer", "no-handler", "no-stream-app", "no-such-stream", "not-an-object",
        "not-continued", "not-eligible", "not-for-peer", "not-found", "not-json", "not-paired", "nothing-to-open", "pairing-failed",
        "pairing-timeout", "pairing-window-closed", "payload-decode-failed", "peer-unreachable", "permission-denied", "push-refused",
        "rate-limited", "refused-there", "reply-too-large", "search-failed", "search-off", "store-failed", "stream-app-closed",
        "stream-daemon-stopping",
        "stream-ended", "stream-exists", "stream-link-lost", "stream-not-accepted", "stream-not-opened", "stream-protocol",
        "stream-refused", "stream-socket", "stream-unknown", "stream-unpaired", "too-large", "too-many-clients", "too-many-streams",
        "type-not-declared", "undeclared-type", "unexpected", "unexpected-reply", "unknown-op", "unknown-peer", "unreadable-answer",
        "unsupported-version"
    ]

    /// The D-Bus error name of a control error's code: `not-found` ->
    /// `org.handoffd.Handoff1.Error.NotFound`; a code not in `knownErrorCodes` -> `...Error.Failed`.
    public static func errorName(_ code: String) -> String {
        guard knownErrorCodes.contains(code) else { return errorPrefix + "Failed" }
        let camel = code.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return errorPrefix + camel
    }
}

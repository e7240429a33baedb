import HandoffClipboard
import HandoffConfig

extension ClipboardSettings {
    /// The `clipboard:` block of handoffd.yaml.
    init(_ c: ClipboardConfiguration) {
        self.init(enabled: c.enabled, refuseFrom: Set(c.refuseFrom), maxBytes: c.maxBytes, lifetime: .seconds(c.offerSeconds))
    }
}

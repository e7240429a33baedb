import HandoffClipboard

/// A display's clipboard as the agent uses it, whatever the display: X11 (XFixes) or Wayland
/// (data-control).
protocol DisplayClipboard: Sendable {
    /// What the agent reports to handoffd as its backend.
    var name: String { get }
    /// Each copy another program makes here, with its shared types' bytes.
    var copies: AsyncStream<DisplayCopy> { get }
    /// Takes the clipboard, offering `mimes`, the bytes coming from `serve` on paste.
    func own(_ mimes: [String], serve: @escaping @Sendable (String) async -> [UInt8]?)
    /// Gives the clipboard up if the agent holds it.
    func release()
}

import HandoffClipboard
import HandoffWayland

/// A Wayland session's clipboard (ext-data-control-v1 or zwlr-data-control-v1).
struct WaylandDisplay: DisplayClipboard {
    let clipboard: WaylandClipboard
    let name: String

    static func open(primary: Bool, limit: Int) -> Result<WaylandDisplay, WaylandProblem> {
        WaylandClipboard.open(primary: primary, limit: limit).map { WaylandDisplay(clipboard: $0, primary: primary) }
    }

    private init(clipboard: WaylandClipboard, primary: Bool) {
        self.clipboard = clipboard
        name = "wayland (\(clipboard.protocolName)\(primary ? ", primary selection too" : ""))"
        _ = clipboard.start()
    }

    var copies: AsyncStream<DisplayCopy> { clipboard.copies }

    func own(_ mimes: [String], serve: @escaping @Sendable (String) async -> [UInt8]?) { clipboard.own(mimes, serve: serve) }
    func release() { clipboard.release() }
}

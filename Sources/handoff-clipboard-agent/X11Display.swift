import HandoffClipboard
import HandoffX11

/// The X11 clipboard (XFixes selection notifications through libxcb).
struct X11Display: DisplayClipboard {
    let clipboard: X11Clipboard
    let name: String

    init(display: String?, primary: Bool, limit: Int) throws(X11Error) {
        clipboard = try X11Clipboard(display: display, primary: primary, limit: limit)
        name = primary ? "x11 (CLIPBOARD and PRIMARY, XFixes)" : "x11 (CLIPBOARD, XFixes)"
        _ = clipboard.start()
    }

    var copies: AsyncStream<DisplayCopy> { clipboard.copies }

    func own(_ mimes: [String], serve: @escaping @Sendable (String) async -> [UInt8]?) { clipboard.own(mimes, serve: serve) }
    func release() { clipboard.release() }
}

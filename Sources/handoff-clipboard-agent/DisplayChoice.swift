import HandoffX11

/// Which display clipboard this session has: Wayland's data-control where the compositor offers
/// it, X11's where the session is X11; otherwise none, and why.
enum DisplayChoice {
    static func open(environment: [String: String], primary: Bool, limit: Int) -> (DisplayClipboard?, String?) {
        if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty {
            switch WaylandDisplay.open(primary: primary, limit: limit) {
            case .success(let display): return (display, nil)
            case .failure(let problem): return (nil, problem.description)
            }
        }
        if let x = environment["DISPLAY"], !x.isEmpty {
            do throws(X11Error) { return (try X11Display(display: x, primary: primary, limit: limit), nil) } catch { return (nil, error.description) }
        }
        return (nil, "neither WAYLAND_DISPLAY nor DISPLAY is set: this is not a graphical session")
    }
}

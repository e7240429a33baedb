import CWaylandClipboard
import HandoffAsync
import HandoffClipboard
import HandoffCore
#if canImport(Glibc)
    import Glibc
#endif

/// Why a Wayland session's clipboard cannot be watched.
public enum WaylandProblem: Error, Sendable, CustomStringConvertible {
    case noDisplay
    case noDataControl
    case noSeat

    public var description: String {
        switch self {
        case .noDisplay: "cannot connect to the Wayland display (WAYLAND_DISPLAY, XDG_RUNTIME_DIR)"
        case .noDataControl:
            "the compositor offers neither ext-data-control-v1 nor zwlr-data-control-v1 (GNOME's mutter offers neither): no program may watch the clipboard; use `handoffctl clipboard copy` and `paste`"
        case .noSeat: "the compositor has no seat, so no clipboard"
        }
    }
}

/// A Wayland session's clipboard through data-control (`handoff_wayland.h`): each copy another
/// client makes is read (its shared types) and handed over; `own` makes the agent the clipboard's
/// source, the bytes coming from `serve` when a client pastes. Its events run on a thread of its own.
public final class WaylandClipboard: @unchecked Sendable {
    let client: OpaquePointer
    let limit: Int
    let primary: Bool
    let lock = ThreadLock()
    /// What the event thread and the agent's calls share, under `lock`.
    var state = State()
    let continuation: AsyncStream<DisplayCopy>.Continuation
    public let copies: AsyncStream<DisplayCopy>
    public let protocolName: String

    struct State {
        /// Each live offer's MIME types, as the compositor named them.
        var offerTypes: [OpaquePointer: [String]] = [:]
        /// The offer each selection holds now (destroyed when the next comes).
        var current: [Bool: OpaquePointer] = [:]
        var owned: Owned?
    }

    struct Owned {
        let sources: [OpaquePointer]
        let serve: @Sendable (String) async -> [UInt8]?
        let mimes: [String]
    }

    static let readWithin = Duration.seconds(2)

    /// Connects to the session's compositor (`nil`: $WAYLAND_DISPLAY).
    public static func open(display: String? = nil, primary: Bool = false, limit: Int) -> Result<WaylandClipboard, WaylandProblem> {
        let box = Box()
        var callbacks = hw_callbacks(
            context: Unmanaged.passUnretained(box).toOpaque(),
            offer_type: { context, offer, mime in
                guard let context, let offer, let mime else { return }
                Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().clipboard?.offered(OpaquePointer(offer), String(cString: mime))
            },
            selection: { context, offer, primary in
                guard let context else { return }
                Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().clipboard?.selected(offer.map(OpaquePointer.init), primary: primary != 0)
            },
            send: { context, source, mime, fd in
                guard let context, let source, let mime else {
                    close(fd)
                    return
                }
                Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().clipboard?.send(OpaquePointer(source), String(cString: mime), fd)
            },
            cancelled: { context, source in
                guard let context, let source else { return }
                Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().clipboard?.cancelled(OpaquePointer(source))
            },
            finished: { context in
                guard let context else { return }
                Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().clipboard?.continuation.finish()
            })
        var out: OpaquePointer?
        let status = display.map { name in name.withCString { hw_open($0, &callbacks, &out) } } ?? hw_open(nil, &callbacks, &out)
        switch status {
        case 0: break
        case Int32(HW_NO_DATA_CONTROL): return .failure(.noDataControl)
        case Int32(HW_NO_SEAT): return .failure(.noSeat)
        default: return .failure(.noDisplay)
        }
        guard let out else { return .failure(.noDisplay) }
        let clipboard = WaylandClipboard(client: out, limit: limit, primary: primary, box: box)
        return .success(clipboard)
    }

    /// The callbacks' context: set once the clipboard exists, kept as long as it lives.
    final class Box: @unchecked Sendable {
        weak var clipboard: WaylandClipboard?
    }

    private let box: Box

    private init(client: OpaquePointer, limit: Int, primary: Bool, box: Box) {
        self.client = client
        self.limit = limit
        self.primary = primary
        self.box = box
        protocolName = String(cString: hw_protocol(client))
        (copies, continuation) = AsyncStream.makeStream(of: DisplayCopy.self, bufferingPolicy: .bufferingNewest(4))
        box.clipboard = self
    }

    /// Dispatches the compositor's events on a thread of its own until the connection ends.
    public func start() -> Int32 {
        BlockingThread.start(name: "wayland-clipboard") { [self] in
            while true {
                _ = hw_flush(client)
                var fd = pollfd(fd: hw_fd(client), events: Int16(POLLIN), revents: 0)
                guard poll(&fd, 1, 1_000) >= 0 || errno == EINTR else { break }
                if fd.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, hw_dispatch(client) < 0 { break }
            }
            continuation.finish()
        }
    }
}

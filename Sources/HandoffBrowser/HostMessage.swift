import HandoffControl
import HandoffCore

/// What the host tells the extension (docs/BROWSER.md, "Messages"), as the JSON it reads.
public enum HostMessage: Sendable, Equatable {
    /// Whether handoffd answers, and this machine's name when it does.
    case status(daemonUp: Bool, device: String?, message: String?)
    /// The answer to a request with `id`.
    case reply(id: Int64, fields: [String: PropertyListValue])
    case failed(id: Int64, code: FailureCode, message: String)
    /// Open `page` in a new tab, then say `opened` with `token`.
    case openTab(token: String, page: WebPage)
    /// A message that could not be read, or was too long.
    case error(code: FailureCode, message: String)

    public var json: [UInt8] {
        let value: [String: PropertyListValue]
        switch self {
        case .status(let up, let device, let message):
            var v: [String: PropertyListValue] = ["type": "status", "daemon": .string(up ? "up" : "down")]
            if let device { v["device"] = .string(device) }
            if let message { v["message"] = .string(message) }
            value = v
        case .reply(let id, let fields):
            value = fields.merging(["type": "reply", "id": .integer(id), "ok": true]) { _, ours in ours }
        case .failed(let id, let code, let message):
            value = ["type": "reply", "id": .integer(id), "ok": false, "code": .string(code.rawValue), "message": .string(message)]
        case .openTab(let token, let page):
            value = ["type": "open-tab", "token": .string(token), "url": .string(page.url.absoluteString), "title": .string(page.title)]
        case .error(let code, let message):
            value = ["type": "error", "code": .string(code.rawValue), "message": .string(message)]
        }
        return JSONWriter.encode(.dictionary(value))
    }
}

/// The extensions that may start the host: the browser says which one did (Chromium passes its
/// origin, Firefox the manifest's path and the add-on's id), and each browser's manifest names
/// ours alone; the host checks again.
public enum BrowserCaller {
    /// Pinned by the `key` in the extension's manifest.
    public static let chromiumID = "dpckoceeejgnaeeflonbbjoeddmeknea"
    public static let geckoID = "browser@handoffd.org"

    /// Whether `arguments` (without the program) name our extension.
    public static func isAllowed(_ arguments: [String]) -> Bool {
        if arguments.first == "chrome-extension://\(chromiumID)/" { return true }
        return arguments.count >= 2 && arguments[1] == geckoID
    }
}

import HandoffControl
import HandoffCore

/// One line from handoffd's control socket, read: an event, an answer to a request (or, without
/// an id, the daemon turning the connection away), or a line that could not be read. Shared by
/// the connection (`HandoffClient`) and the one-shot request (`HandoffClient.performOnce`).
enum AnswerLine {
    case event(ControlEvent)
    case answer(id: Int64?, Result<PropertyListValue?, ClientError>)
    case unreadable(id: Int64?, message: String)

    /// Answers come from our own daemon and may carry a whole scene: far more room than requests.
    static let maxLength = 16 * 1024 * 1024
    /// Answers come from our own daemon: bounded only to stay sane.
    static let limits = CodecLimits(maxDepth: 32, maxValues: 4_000_000, maxBytes: maxLength)

    init(_ bytes: [UInt8]) {
        // Our own reader, never Foundation's: an event can carry a peer's values (a date that
        // kills ICU, for one), and a bad one must fail that line only.
        guard let value = try? JSONValue.parse(bytes, limits: Self.limits), var fields = value.dictionaryValue else {
            self = .unreadable(id: Self.idOf(bytes), message: "handoffd's answer could not be read")
            return
        }
        if let name = fields.removeValue(forKey: "event")?.stringValue {
            self = .event(ControlEvent(name: name, fields: fields))
            return
        }
        if fields["ok"]?.boolValue ?? false {
            self = .answer(id: fields["id"]?.integerValue, .success(fields["result"]))
        } else {
            let err = fields["error"]?.dictionaryValue
            let code = err?["code"]?.stringValue.map { FailureCode($0) } ?? .badResponse
            let message = err?["message"]?.stringValue ?? "handoffd refused the request"
            self = .answer(id: fields["id"]?.integerValue, .failure(.refused(code: code, message: message)))
        }
    }

    static let tooLong = "handoffd's answer was longer than \(maxLength) bytes and was dropped"

    /// The `"id":N` of a line that could not be read whole, so that its own request fails.
    static func idOf(_ line: [UInt8]) -> Int64? {
        let key = Array("\"id\":".utf8)
        guard let at = line.indices.first(where: { line[$0...].starts(with: key) }) else { return nil }
        let digits = line[(at + key.count)...].prefix(while: { $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) })
        return Int64(String(decoding: digits, as: UTF8.self))
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import Crypto
import HandoffCore
import HandoffProtocol

/// One type of a copy, with its bytes.
public struct ClipboardItem: Sendable, Equatable {
    public let type: ClipboardType
    public let bytes: [UInt8]
    public init(type: ClipboardType, bytes: [UInt8]) { (self.type, self.bytes) = (type, bytes) }
}

/// Why a copy is not shared. Each is the person's rule or a bound, never an error of theirs.
public enum ClipboardRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// A password manager marked it (`x-kde-passwordManagerHint`).
    case secret
    /// It came from a paired machine (the same content as an offer heard): no echo.
    case fromPeer
    case tooLarge(size: Int, limit: Int)
    /// None of its types is shared (an app's private types, a link that is not http(s)).
    case nothingShared
    /// The clipboard is turned off on this machine.
    case off

    public var description: String {
        switch self {
        case .secret: "a password manager marked this copy secret: it stays on this machine"
        case .fromPeer: "this copy came from a paired machine: it is not offered back"
        case .tooLarge(let size, let limit): "the copy is \(size) bytes, more than clipboard.max_bytes (\(limit))"
        case .nothingShared: "none of the copy's types is shared (text, HTML, images, http(s) links)"
        case .off: "the shared clipboard is off on this machine; turn it on with `handoffctl clipboard on`"
        }
    }

    public var code: FailureCode {
        switch self {
        case .secret: .clipboardSecret
        case .fromPeer: .clipboardEcho
        case .tooLarge: .tooLarge
        case .nothingShared: .clipboardNothingShared
        case .off: .clipboardOff
        }
    }
}

/// What may leave the machine of a copy: only the shared types, checked; the password manager's
/// mark keeps all of it home.
public enum ClipboardRules {
    /// The shared items of a copy, in `ClipboardType.shared`'s order, or why nothing is shared.
    public static func shared(_ items: [ClipboardItem], limit: Int) throws(ClipboardRefusal) -> [ClipboardItem] {
        // Any value of the hint: KeePassXC writes "secret", and nothing else is defined for it.
        if items.contains(where: { $0.type == .passwordManagerHint }) { throw .secret }
        var kept: [ClipboardItem] = []
        for type in ClipboardType.shared {
            guard let item = items.first(where: { $0.type == type }) else { continue }
            switch type {
            case .text, .html:
                guard String(validUTF8: item.bytes[...]) != nil else { continue }
                kept.append(item)
            case .uriList:
                if let links = webLinks(item.bytes) { kept.append(ClipboardItem(type: .uriList, bytes: links)) }
            default:
                kept.append(item)
            }
        }
        guard !kept.isEmpty else { throw .nothingShared }
        let size = kept.reduce(0) { $0 + $1.bytes.count }
        guard size <= limit else { throw .tooLarge(size: size, limit: limit) }
        return kept
    }

    /// A text/uri-list with its http(s) lines alone (RFC 2483: CRLF lines, # comments); nil if none.
    static func webLinks(_ bytes: [UInt8]) -> [UInt8]? {
        guard let text = String(validUTF8: bytes[...]) else { return nil }
        let lines = text.split(whereSeparator: \.isNewline).filter { line in
            let lower = line.lowercased()
            return (lower.hasPrefix("https://") || lower.hasPrefix("http://")) && !line.contains(where: { $0.isWhitespace })
        }
        guard !lines.isEmpty else { return nil }
        return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// The first 16 bytes of SHA-256 over each item's type, length and bytes, in order.
    public static func hash(_ items: [ClipboardItem]) -> [UInt8] {
        var h = SHA256()
        for item in items {
            h.update(data: Array(item.type.rawValue.utf8) + [0])
            withUnsafeBytes(of: UInt64(item.bytes.count).bigEndian) { h.update(bufferPointer: $0) }
            h.update(data: item.bytes)
        }
        return Array(h.finalize().prefix(ClipboardOffer.hashBytes))
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// A MIME type on the shared clipboard. Only these travel: text, HTML, images and http(s) links
/// (docs/CLIPBOARD.md); an app's private types never leave its machine.
public struct ClipboardType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public static let text = ClipboardType("text/plain;charset=utf-8")
    public static let html = ClipboardType("text/html")
    public static let uriList = ClipboardType("text/uri-list")
    public static let png = ClipboardType("image/png")
    public static let jpeg = ClipboardType("image/jpeg")
    public static let gif = ClipboardType("image/gif")
    public static let webp = ClipboardType("image/webp")
    public static let bmp = ClipboardType("image/bmp")
    /// The types shared, in the order a paste prefers them when none is asked for.
    public static let shared: [ClipboardType] = [.text, .html, .uriList, .png, .jpeg, .gif, .webp, .bmp]
    /// Set by password managers (KeePassXC, KDE's) beside a secret they copy: never shared.
    public static let passwordManagerHint = ClipboardType("x-kde-passwordManagerHint")
}

/// One type of an offer: what it is and how many bytes it has.
public struct OfferedItem: Sendable, Equatable {
    public let type: ClipboardType
    public let size: UInt64
    public init(type: ClipboardType, size: UInt64) { (self.type, self.size) = (type, size) }
}

/// What a copy tells the paired machines: the types, their sizes, a hash of the content, when.
/// The bytes stay on the copying machine until one of them pastes.
public struct ClipboardOffer: Sendable, Equatable {
    public let id: UUID
    public let items: [OfferedItem]
    /// The first 16 bytes of SHA-256 over the content (`ClipboardContent.hash`): the same copy
    /// again is not told twice, and content that came from a peer is known when it is copied back.
    public let hash: [UInt8]
    /// When it was copied, by the copying machine's clock (shown, never compared across machines).
    public let copiedAt: Date

    public static let hashBytes = 16
    /// An offer names at most this many types.
    public static let maxItems = 8

    public init(id: UUID, items: [OfferedItem], hash: [UInt8], copiedAt: Date) {
        (self.id, self.items, self.hash, self.copiedAt) = (id, items, hash, copiedAt)
    }

    public var size: UInt64 { items.reduce(0) { $0 + $1.size } }

    public func item(_ type: ClipboardType) -> OfferedItem? { items.first { $0.type == type } }
}

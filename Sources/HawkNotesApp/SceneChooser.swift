#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One saved window, as the chooser lists it.
public struct SceneChoice: Sendable, Equatable {
    public let id: UUID
    public let book: String?
    public let character: String?
    public let updated: Date

    public init(id: UUID, book: String?, character: String?, updated: Date) {
        (self.id, self.book, self.character, self.updated) = (id, book, character, updated)
    }

    /// "The Burning Swift > Lady Beatrice", or what it is when it shows nothing yet.
    public var label: String {
        switch (book, character) {
        case (let b?, let c?): "\(b) > \(c)"
        case (let b?, nil): b
        default: "an empty window"
        }
    }
}

/// At launch, with several saved windows and none asked for: which one to open. A value with a
/// reducer, like the window itself.
public struct SceneChooser: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case open(UUID)
        case newWindow
        case quit
    }

    /// Newest first.
    public let choices: [SceneChoice]
    public private(set) var cursor = 0

    public init(_ choices: [SceneChoice]) { self.choices = choices.sorted { $0.updated > $1.updated } }

    public mutating func reduce(_ key: AppKey) -> Outcome? {
        switch key {
        case .up: cursor = max(cursor - 1, 0)
        case .down: cursor = min(cursor + 1, max(choices.count - 1, 0))
        case .enter: return choices.isEmpty ? .newWindow : .open(choices[cursor].id)
        case .character("n"): return .newWindow
        case .character("q"), .escape: return .quit
        case .character(let c) where c.isNumber:
            if let n = Int(String(c)), choices.indices.contains(n - 1) { return .open(choices[n - 1].id) }
        default: break
        }
        return nil
    }
}

extension Screen {
    /// The chooser's screen.
    public init(chooser: SceneChooser, width: Int, height: Int) {
        if let small = Screen(tooSmallWidth: width, height: height) {
            self = small
            return
        }
        self.init(lines: [], width: width, height: height)
        lines.append([Segment(fit(" Hawk Notes — open which window?", self.width), .title)])
        lines.append([])
        for (i, choice) in chooser.choices.enumerated().prefix(max(self.height - 5, 1)) {
            let text = "\(i < 9 ? "\(i + 1)" : " ") \(choice.label)"
            let selected = i == chooser.cursor
            lines.append([Segment(fit((selected ? "> " : "  ") + text, self.width), selected ? .reverse : .plain)])
        }
        while lines.count < self.height - 1 { lines.append([]) }
        lines.append([Segment(fit("↑/↓ choose  ⏎ open  1-9 open that one  n new window  q quit", self.width), .reverse)])
        clipRows()
    }
}

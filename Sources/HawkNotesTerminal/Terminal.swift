import CNcurses
import Glibc
import HandoffCore
import HawkNotesApp

/// The terminal, through ncurses (the only importer of CNcurses): full screen, keys decoded into
/// `AppKey`s, a `Screen` painted. Colours where the terminal has them; on a plain VT100 the
/// styles fall back to bold, dim and reverse video. Every call is made from one thread (the
/// app's main actor): ncurses is not thread-safe.
@MainActor
public final class Terminal {
    private let window: UnsafeMutablePointer<WINDOW>
    private let colours: Bool
    private var open = true

    /// Takes the terminal over; `close()` gives it back (also on a signal, see `hawknotes`).
    public init() throws(TerminalError) {
        guard hn_set_locale() != 0 else { throw .notUTF8(String(cString: nl_langinfo(nl_item(CODESET)))) }
        // newterm, not initscr: initscr exits the process when the terminal cannot be used, and
        // the app has a clearer thing to say.
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw .notATerminal }
        let type = getenv("TERM").map { String(cString: $0) } ?? ""
        guard !type.isEmpty else { throw .noTerminalType }
        guard let screen = hn_newterm(), let w = hn_stdscr() else { throw .unknownType(type) }
        guard hn_can_address_cursor() != 0 else {
            endwin()
            delscreen(screen)
            throw .cannotMoveCursor(type)
        }
        window = w
        cbreak()
        noecho()
        nonl()
        keypad(window, true)
        // ESC alone is a key here (back): do not wait a second for an escape sequence to follow.
        set_escdelay(25)
        colours = has_colors()
        if colours {
            start_color()
            use_default_colors()
            init_pair(1, Int16(COLOR_CYAN), -1)  // title
            init_pair(2, Int16(COLOR_YELLOW), -1)  // accent: offers, the draft being typed
        }
        curs_set(0)
    }

    /// Rows and columns now.
    public var size: (rows: Int, columns: Int) { (Int(getmaxy(window)), Int(getmaxx(window))) }

    /// The next key, waiting at most `milliseconds` (0: only what is already typed); nil when none.
    public func key(waiting milliseconds: Int32) -> AppKey? {
        wtimeout(window, milliseconds)
        var ch: wint_t = 0
        let r = wget_wch(window, &ch)
        if r == ERR { return nil }
        if r == hn_key_code_yes() { return Self.function(Int32(ch)) }
        return Self.character(UInt32(ch))
    }

    static func function(_ code: Int32) -> AppKey? {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_BTAB: .previousTab
        case KEY_ENTER: .enter
        case KEY_BACKSPACE, KEY_DC: .backspace
        case KEY_RESIZE: .resize
        default: nil
        }
    }

    static func character(_ code: UInt32) -> AppKey? {
        switch code {
        case 9: return .nextTab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 0..<32: return nil
        default: return Unicode.Scalar(code).map { .character(Character($0)) }
        }
    }

    /// Paints the screen: only what changed reaches the terminal (ncurses compares).
    public func draw(_ screen: Screen) {
        werase(window)
        for (row, segments) in screen.lines.enumerated() where row < screen.height {
            wmove(window, Int32(row), 0)
            for segment in segments {
                let attributes = attributes(segment.style)
                wattron(window, attributes)
                waddnstr(window, Self.inert(segment.text), -1)
                wattroff(window, attributes)
            }
        }
        if let cursor = screen.cursor {
            curs_set(1)
            wmove(window, Int32(cursor.row), Int32(min(cursor.column, screen.width - 1)))
        } else {
            curs_set(0)
        }
        wrefresh(window)
    }

    /// The text with every display control (escapes, bidi overrides such as U+202E, which a
    /// draft pushed from another machine may hold) drawn as U+FFFD: whatever reaches the screen
    /// is shown, never obeyed.
    nonisolated static func inert(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: \.isDisplayControl) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars { out.append(s.isDisplayControl ? "\u{FFFD}" : s) }
        return String(out)
    }

    private func attributes(_ style: Screen.Style) -> Int32 {
        switch style {
        case .plain: 0
        case .bold: hn_attr_bold()
        case .dim: hn_attr_dim()
        case .reverse: hn_attr_reverse()
        case .title: colours ? hn_color_pair(1) | hn_attr_bold() : hn_attr_reverse()
        case .accent: colours ? hn_color_pair(2) | hn_attr_bold() : hn_attr_bold()
        }
    }

    /// Gives the terminal back as it was.
    public func close() {
        guard open else { return }
        open = false
        curs_set(1)
        endwin()
    }
}

/// Why the terminal cannot be taken over, each saying what to do.
public enum TerminalError: Error, CustomStringConvertible {
    /// Standard input or output is not a terminal (a pipe, a file, a service).
    case notATerminal
    case noTerminalType
    /// TERM names a type terminfo does not have here.
    case unknownType(String)
    /// TERM's type cannot put the cursor anywhere (TERM=dumb).
    case cannotMoveCursor(String)
    /// Neither the locale's characters nor C.UTF-8's are UTF-8 (the codeset named).
    case notUTF8(String)

    public var description: String {
        switch self {
        case .notUTF8(let codeset):
            "Hawk Notes draws Unicode text, and this machine's locale uses \(codeset.terminalSafe) with no C.UTF-8 to fall back on; set LANG to a UTF-8 locale (such as C.UTF-8 or en_US.UTF-8)"
        case .notATerminal:
            "hawknotes needs a terminal: its input or output is not one; run it in a terminal window, or under tmux"
        case .noTerminalType:
            "TERM is not set, so the terminal's type is unknown; set it (such as TERM=xterm-256color) or run hawknotes in a terminal window"
        case .unknownType(let type):
            "TERM=\(type.terminalSafe) is a terminal type this machine has no description of (terminfo); install ncurses-term, or set TERM to one it has (such as xterm-256color)"
        case .cannotMoveCursor(let type):
            "TERM=\(type.terminalSafe) cannot move the cursor, and Hawk Notes draws a full screen; run it in a terminal window or under tmux (or set TERM to the terminal's real type)"
        }
    }
}

import Foundation
import HandoffCore
import HawkNotes
import Testing

@testable import HawkNotesApp

/// Every row of the screen fits the terminal in columns, not in characters: a title in Chinese,
/// Japanese or Korean, or with emoji, from another machine, ran past the row's end (ncurses
/// wrapped it over the status and key lines), and a terminal smaller than the layout got rows
/// painted past its edges.
@Suite struct ScreenFitTests {
    @Test func charactersTakeTheirColumns() {
        #expect(Character("a").terminalColumns == 1)
        #expect(Character("—").terminalColumns == 1)
        #expect(Character("語").terminalColumns == 2)
        #expect(Character("한").terminalColumns == 2)
        #expect(Character("Ａ").terminalColumns == 2, "fullwidth forms")
        #expect(Character("😀").terminalColumns == 2)
        #expect(Character("❤️").terminalColumns == 2, "text made a picture by VS16")
        #expect(Character("e\u{301}").terminalColumns == 1, "a combining accent adds none")
        #expect(Character("\u{200B}").terminalColumns == 0)
        #expect("日本語 ok".terminalColumns == 9)
    }

    @Test func fitAndWrapCountColumns() {
        let title = "雪の時計職人と七つの約束"
        #expect(fit(title, 9) == "雪の時計…")
        #expect(fit(title, 9).terminalColumns <= 9)
        #expect(fit(title, 24) == title, "24 columns: it fits whole")
        for width in 2...30 {
            let rows = wrap("風の谷 the keeper of Salt and Lantern 灯台守の娘 ❤️ ok", width: width)
            #expect(rows.allSatisfy { $0.terminalColumns <= width }, "width \(width): \(rows)")
            #expect(rows.joined().filter { $0 != " " } == "風の谷thekeeperofSaltandLantern灯台守の娘❤️ok", "nothing lost at \(width)")
        }
    }

    /// States the screen shows, at every size from the smallest the layout takes to a large one.
    @Test func everyRowFitsItsTerminal() {
        let wide = "灯台守の娘が見た七つの嵐の記録 🌊🌊🌊 and more"
        var states: [AppState] = []
        var s = AppState(library: library)
        _ = s.reduce(.offers([Offer(peer: "東京のノートパソコン", activityID: UUID(), type: "t", title: wide)]))
        states.append(s)
        _ = s.reduce(.continued(book: burningSwift.id, character: beatrice.id, draft: nil))
        states.append(s)
        var typing = AppState(library: library)
        _ = typing.reduce(.key(.character("e")))
        for c in "下書き：" + wide { _ = typing.reduce(.key(.character(c))) }
        states.append(typing)
        var help = AppState(library: library)
        _ = help.reduce(.key(.character("?")))
        states.append(help)
        var notice = AppState(library: library)
        _ = notice.reduce(.notice("続けられませんでした: " + wide))
        states.append(notice)
        for width in [20, 21, 23, 31, 40, 57, 80, 132] {
            for height in [10, 11, 13, 14, 15, 24, 50] {
                for (n, state) in states.enumerated() {
                    var laid = state
                    laid.layout(visibleRows: Screen.characterRows(height: height))
                    let screen = Screen(laid, library: library, width: width, height: height)
                    #expect(screen.lines.count == height, "state \(n) at \(width)×\(height)")
                    let over = screen.lines.map { $0.map(\.text).joined() }.filter { $0.terminalColumns > width }
                    #expect(over.isEmpty, "state \(n) at \(width)×\(height): \(over)")
                    if let cursor = screen.cursor { #expect(cursor.row < height && cursor.column <= width, "state \(n)") }
                }
            }
        }
        // The title gives way: who offers it and the key stay in view.
        let offered = Screen(states[0], library: library, width: 80, height: 24).text
        #expect(offered.contains("…” is open on 東京のノートパソコン — c to continue"), "\(offered)")
        let typed = Screen(typing, library: library, width: 40, height: 24)
        let row = typed.lines[typed.cursor!.row].map(\.text).joined()
        #expect(row.hasSuffix("and more") && typed.cursor?.column == row.terminalColumns, "the draft's end stays in view, the cursor after it")
    }

    @Test func aTerminalSmallerThanTheLayoutSaysSo() {
        let state = AppState(library: library)
        for (width, height) in [(19, 24), (80, 9), (20, 5), (12, 3), (1, 1), (0, 0)] {
            let screen = Screen(state, library: library, width: width, height: height)
            #expect(screen.lines.count <= max(height, 1), "\(width)×\(height)")
            #expect(screen.lines.allSatisfy { $0.map(\.text).joined().terminalColumns <= max(width, 1) }, "\(width)×\(height): \(screen.text)")
            #expect(screen.cursor == nil)
            let chooser = Screen(chooser: SceneChooser([]), width: width, height: height)
            #expect(chooser == screen, "the window chooser says the same")
        }
        #expect(Screen(state, library: library, width: 80, height: 9).text == "Hawk Notes needs a terminal of 20×10 or more; this one is 80×9")
        #expect(Screen(state, library: library, width: 20, height: 5).text.contains("this one is"))
        #expect(!Screen(state, library: library, width: 20, height: 10).text.contains("needs a terminal"))
    }

    /// A book of many characters, walked down and up at each height: the selected one is always
    /// on the screen (the list's rows as the state scrolls them are the rows the screen shows).
    @Test func theSelectedCharacterStaysInView() throws {
        let characters = (1...30).map { n in
            #"{ "id": "\#(UUID().uuidString)", "name": "人物 \#(n)", "description": "第\#(n)章の登場人物" }"#
        }
        let json = #"""
            { "books": [ { "id": "\#(UUID().uuidString)", "title": "長い本", "imagePrefix": "x", "tagline": "多くの人物",
              "synopsis": "\#(String(repeating: "あらすじ ", count: 40))", "storeURL": "https://books.example.org/x",
              "notes": "覚え書き", "characters": [\#(characters.joined(separator: ","))] } ] }
            """#
        let long = try Library(json: Data(json.utf8))
        for height in [10, 11, 14, 15, 16, 24] {
            var s = AppState(library: long)
            s.layout(visibleRows: Screen.characterRows(height: height))
            for step in 0..<62 {
                _ = s.reduce(.key(step < 31 ? .down : .up))
                let screen = Screen(s, library: long, width: 30, height: height)
                #expect(screen.lines.count == height)
                let cursor = s.selected.cursor
                let shown = cursor == 0 ? "> Draft:" : "> 人物 \(cursor)"
                #expect(screen.text.contains(shown), "\(height) rows, step \(step): \(shown) not on\n\(screen.text)")
            }
        }
    }
}

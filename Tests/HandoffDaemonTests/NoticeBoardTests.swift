import Foundation
import Testing
@testable import HandoffDaemon

/// Which "continue from alpha" notifications are on the desktop.
@Suite struct NoticeBoardTests {
    func offer(_ title: String, type: String = "org.hawknotes.characterDetail", id: UUID = UUID()) -> NoticeBoard.Offer {
        NoticeBoard.Offer(activity: id, type: type, title: title)
    }

    @Test func flippingUpdatesOneNotification() {
        var board = NoticeBoard(quietTypes: [])
        let first = offer("Pell")
        #expect(board.offers([first], from: "alpha") == .show(first, replaces: 0))
        #expect((board.showing(first, from: "alpha", id: 7) as Bool))
        let second = offer("Lady Beatrice")
        #expect(board.offers([second], from: "alpha") == .show(second, replaces: 7), "updated in place")
        #expect((board.showing(second, from: "alpha", id: 7) as Bool))
        #expect(board.offers([second], from: "alpha") == .nothing, "nothing new")
        // The newest is the last of the list.
        let third = offer("Mira")
        #expect(board.offers([second, third], from: "alpha") == .show(third, replaces: 7))
    }

    @Test func resignedOrGoneCloses() {
        var board = NoticeBoard(quietTypes: [])
        let o = offer("Pell")
        _ = board.offers([o], from: "alpha")
        _ = board.showing(o, from: "alpha", id: 3)
        #expect(board.offers([], from: "alpha") == .close(3))
        #expect(board.offers([], from: "alpha") == .nothing)
        _ = board.offers([o], from: "beta")
        _ = board.showing(o, from: "beta", id: 4)
        #expect(board.gone("beta") == .close(4))
    }

    @Test func dismissedIsNotShownAgainAndQuietTypesNever() {
        var board = NoticeBoard(quietTypes: ["org.example.quiet"])
        let o = offer("Pell")
        _ = board.offers([o], from: "alpha")
        _ = board.showing(o, from: "alpha", id: 5)
        let ended = board.ended(5)
        #expect(ended?.offer == o)
        #expect(board.offers([o], from: "alpha") == .nothing, "dismissed: not again")
        #expect(board.offers([offer("q", type: "org.example.quiet")], from: "alpha") == .nothing)
        let newer = offer("Mira")
        #expect(board.offers([o, newer], from: "alpha") == .show(newer, replaces: 0))
    }

    /// Continued here another way (the app, handoffctl): the notification closes and the
    /// activity is not offered again; another machine's notification stays.
    @Test func continuedHereClosesItsNotification() {
        var board = NoticeBoard(quietTypes: [])
        let o = offer("Pell"), other = offer("Mira")
        _ = board.offers([o], from: "alpha")
        _ = board.showing(o, from: "alpha", id: 6)
        _ = board.offers([other], from: "gamma")
        _ = board.showing(other, from: "gamma", id: 8)
        #expect(board.continuedHere(o.activity, from: "alpha") == .close(6))
        #expect(board.offers([o], from: "alpha") == .nothing, "continued: not again")
        #expect(board.continuedHere(o.activity, from: "alpha") == .nothing)
        #expect(board.shown["gamma"]?.id == 8)
        // One not shown yet (its offers still settling) is not shown later either.
        let later = offer("Orrin")
        #expect(board.continuedHere(later.activity, from: "alpha") == .nothing)
        #expect(board.offers([later], from: "alpha") == .nothing)
        // Shown but not yet answered with an id: withdrawn, so the answer's id is closed.
        let fresh = offer("Hask")
        _ = board.offers([fresh], from: "alpha")
        #expect(board.continuedHere(fresh.activity, from: "alpha") == .nothing)
        #expect(!(board.showing(fresh, from: "alpha", id: 9) as Bool))
    }

    @Test func anAnswerForAReplacedOfferIsRefused() {
        var board = NoticeBoard(quietTypes: [])
        let a = offer("A"), b = offer("B")
        _ = board.offers([a], from: "alpha")
        _ = board.offers([b], from: "alpha")
        // The server's id for A came after B replaced it, and B has none yet: A's is closed.
        #expect(!(board.showing(a, from: "alpha", id: 9) as Bool))
        #expect((board.showing(b, from: "alpha", id: 10) as Bool))
    }

    /// The body names the machine, which chose its own name: a server that reads markup gets it
    /// escaped (no link, no bold from a peer), one that shows text gets it as it is.
    @Test func aMachinesNameIsNeverMarkup() {
        let name = #"<a href="https://x.example/">beta</a> & 'co'"#
        #expect(
            NoticeBoard.body(from: name, markup: true)
                == "continue from &lt;a href=&quot;https://x.example/&quot;&gt;beta&lt;/a&gt; &amp; &apos;co&apos;")
        #expect(NoticeBoard.body(from: name, markup: false) == "continue from " + name)
        #expect(NoticeBoard.body(from: "alpha", markup: true) == "continue from alpha")
    }
}

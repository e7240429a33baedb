import Foundation
import HandoffBrowser
import HandoffControl
import HandoffCore
import Testing

/// What the extension sends is read field by field; anything else is a typed problem, and only
/// http(s) pages leave the browser or open in it.
@Suite struct BrowserMessageTests {
    func read(_ json: String) throws(BrowserMessage.Problem) -> BrowserMessage { try BrowserMessage(json: Array(json.utf8)) }

    @Test func theMessagesRead() throws {
        #expect(try read(#"{"type":"away"}"#) == .away)
        #expect(try read(#"{"type":"list","id":3}"#) == .list(id: 3))
        let id = UUID()
        #expect(try read(#"{"type":"open","id":4,"peer":"beta","activity":"\#(id.uuidString)"}"#) == .open(id: 4, peer: "beta", activity: id))
        guard case .tab(let page) = try read(#"{"type":"tab","url":"https://example.org/a","title":"A"}"#) else {
            Issue.record("not a tab")
            return
        }
        #expect(page.url.absoluteString == "https://example.org/a" && page.title == "A")
        #expect(try read(#"{"type":"opened","token":"t1","ok":true}"#) == .opened(token: "t1", ok: true))
    }

    @Test func whatIsNotAMessageIsATypedProblem() {
        let cases: [(String, FailureCode)] = [
            ("not json", .notJson), ("[1,2]", .notJson), (#"{"type":"format-disk"}"#, .unknownMessage), (#"{}"#, .unknownMessage),
            (#"{"type":"list"}"#, .badField), (#"{"type":"list","id":-1}"#, .badField),
            (#"{"type":"open","id":1,"peer":"beta","activity":"nope"}"#, .badField),
            (#"{"type":"send","id":1,"peer":"","url":"https://a.example/"}"#, .badField),
            (#"{"type":"tab","url":"javascript:alert(1)"}"#, .badField), (#"{"type":"tab","url":"file:///etc/passwd"}"#, .badField),
            (#"{"type":"tab","url":"https://u:p@example.org/"}"#, .badField), (#"{"type":"opened","token":""}"#, .badField)
        ]
        for (json, code) in cases {
            #expect(throws: BrowserMessage.Problem.self, "\(json)") { _ = try read(json) }
            do { _ = try read(json) } catch { #expect(error.code == code, "\(json): \(error)") }
        }
    }

    @Test func aTitleIsTextAndBounded() throws {
        let page = try WebPage(url: "https://example.org/", title: "a\u{0}b\u{1b}[31mc" + String(repeating: "t", count: 5000))
        #expect(!page.title.unicodeScalars.contains { $0.value < 0x20 })
        #expect(page.title.count == WebPage.maxTitle)
    }

    @Test func aPageIsAWebBrowsingActivityAndBack() throws {
        let page = try WebPage(url: "https://example.org/read?p=2#s", title: "Reading")
        let activity = page.activity(id: UUID())
        #expect(activity.type == WebBrowsing.type && activity.webpageURL == page.url && activity.title == "Reading")
        #expect(WebPage(continuing: activity) == page)
        var other = UserActivity(type: WebBrowsing.type, title: "x")
        try other.setWebpageURL(URL(string: "https://example.org/")!)
        #expect(WebPage(continuing: other) != nil)
        #expect(WebPage(continuing: UserActivity(type: WebBrowsing.type, title: "no page")) == nil)
    }

    @Test func onlyOurExtensionMayStartTheHost() {
        #expect(BrowserCaller.isAllowed(["chrome-extension://\(BrowserCaller.chromiumID)/"]))
        #expect(BrowserCaller.isAllowed(["/usr/lib/mozilla/native-messaging-hosts/org.handoffd.browser.json", BrowserCaller.geckoID]))
        #expect(!BrowserCaller.isAllowed(["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"]))
        #expect(!BrowserCaller.isAllowed(["/x.json", "evil@example.org"]))
        #expect(!BrowserCaller.isAllowed([]))
    }

    @Test func hostMessagesAreJSONTheExtensionReads() throws {
        let page = try WebPage(url: "https://example.org/", title: "<b>T</b>")
        let value = try #require(try JSONValue.parse(HostMessage.openTab(token: "k", page: page).json).dictionaryValue)
        #expect(value["type"] == "open-tab" && value["url"] == "https://example.org/" && value["title"] == "<b>T</b>")
        let failed = try #require(try JSONValue.parse(HostMessage.failed(id: 2, code: .notPaired, message: "m").json).dictionaryValue)
        #expect(failed["ok"] == false && failed["code"] == "not-paired" && failed["id"] == 2)
    }
}

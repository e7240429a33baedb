import Foundation
import Testing
@testable import HandoffCore

@Suite struct UserActivityTests {
    @Test func versionGrowsOnEveryChange() throws {
        var a = UserActivity(type: makeType())
        #expect(a.version == 1)
        var last = a.version
        func grew() -> Bool {
            defer { last = a.version }
            return a.version > last
        }
        a.title = "t"
        #expect(grew())
        try a.addUserInfoEntries(["k": "v"])
        #expect(grew())
        a.requiredUserInfoKeys = ["k"]
        #expect(grew())
        a.targetContentIdentifier = "x"
        #expect(grew())
        try a.setWebpageURL(URL(string: "https://example.org"))
        #expect(grew())
        a.referrerURL = URL(string: "https://example.org/r")
        #expect(grew())
        a.keywords = ["k"]
        #expect(grew())
        a.expirationDate = Date()
        #expect(grew())
        a.isEligibleForHandoff = false
        #expect(grew())
        a.isEligibleForSearch = true
        #expect(grew())
        a.persistentIdentifier = "p"
        #expect(grew())
        a.needsSave = true
        #expect(grew())
        try a.setTypedPayload([1, 2])
        #expect(grew())
    }

    @Test func addUserInfoEntriesMerges() throws {
        var a = UserActivity(type: makeType())
        try a.setUserInfo(["a": 1, "b": 2])
        try a.addUserInfoEntries(["b": 20, "c": 30])
        #expect(a.userInfo == ["a": 1, "b": 20, "c": 30])
    }

    @Test func reservedKeysAreRefused() {
        var a = UserActivity(type: makeType())
        #expect(throws: ActivityError.reservedUserInfoKey("handoff.payload")) {
            try a.addUserInfoEntries(["handoff.payload": 1])
        }
        #expect(throws: ActivityError.reservedUserInfoKey("handoff.x")) { try a.setUserInfo(["handoff.x": 1]) }
        #expect(a.userInfo.isEmpty)
    }

    @Test(arguments: ["ftp://example.org/x", "file:///etc/passwd", "javascript:alert(1)", "mailto:a@b.c", "https://"])
    func webpageURLMustBeHTTP(_ text: String) {
        var a = UserActivity(type: makeType())
        #expect(throws: ActivityError.unsupportedURLScheme(URL(string: text)!.absoluteString)) {
            try a.setWebpageURL(URL(string: text))
        }
        #expect(a.webpageURL == nil)
    }

    @Test func webpageURLAcceptsHTTPAndHTTPS() throws {
        var a = UserActivity(type: makeType())
        try a.setWebpageURL(URL(string: "HTTP://example.org/a"))
        try a.setWebpageURL(URL(string: "https://example.org/b"))
        #expect(a.webpageURL?.absoluteString == "https://example.org/b")
        try a.setWebpageURL(nil)
        #expect(a.webpageURL == nil)
    }

    @Test func expiry() {
        var a = UserActivity(type: makeType())
        let now = Date()
        #expect(!a.isExpired(at: now))
        a.expirationDate = now.addingTimeInterval(10)
        #expect(!a.isExpired(at: now))
        #expect(a.isExpired(at: now.addingTimeInterval(10)))
    }
}

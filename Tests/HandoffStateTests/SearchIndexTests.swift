import Foundation
import HandoffContent
import HandoffState
import Testing

/// The FTS5 index: ranked, prefixes, diacritics folded, bounded, what people type never syntax.
@Suite struct SearchIndexTests {
    func item(_ id: String, _ title: String, source: String = "s", keywords: String = "", body: String = "") -> SearchItem {
        SearchItem(id: id, source: source, kind: "activity", title: title, keywords: keywords, body: body, detail: "d")
    }

    @Test func prefixesAndDiacriticsMatch() throws {
        let index = SQLiteSearchIndex()
        try index.replace(source: "s", with: [item("1", "Lady Beatrice"), item("2", "Élodie's café"), item("3", "Captain Vale")])
        #expect(try index.search(SearchQuery("bea"), limit: 10).map(\.item.id) == ["1"])
        #expect(try index.search(SearchQuery("lady BEA"), limit: 10).map(\.item.id) == ["1"])
        #expect(try index.search(SearchQuery("elodie cafe"), limit: 10).map(\.item.id) == ["2"])
        #expect(try index.search(SearchQuery("lady vale"), limit: 10).isEmpty, "every word must match")
        #expect(try index.search(SearchQuery("  ,;  "), limit: 10).isEmpty)
    }

    @Test func shortWordsMatchTitlesAndKeywordsOnly() throws {
        let index = SQLiteSearchIndex()
        try index.replace(source: "s", with: [item("title", "Kestrel"), item("body", "Other", body: "kettle"), item("kw", "Else", keywords: "kite")])
        #expect(Set(try index.search(SearchQuery("k"), limit: 10).map(\.item.id)) == ["title", "kw"])
        #expect(try index.search(SearchQuery("ket"), limit: 10).map(\.item.id) == ["body"])
    }

    @Test func titlesOutrankKeywordsOutrankText() throws {
        let index = SQLiteSearchIndex()
        try index.replace(
            source: "s",
            with: [item("body", "Other", body: "a lantern somewhere"), item("title", "Lantern"), item("keywords", "Else", keywords: "lantern")])
        #expect(try index.search(SearchQuery("lantern"), limit: 10).map(\.item.id) == ["title", "keywords", "body"])
    }

    @Test func whatPeopleTypeIsNeverQuerySyntax() throws {
        let index = SQLiteSearchIndex()
        try index.replace(source: "s", with: [item("1", "NEAR the OR gate")])
        for text in ["\"", "NEAR(", "*", "OR", "title:near", "-gate", "^near", "near\"gate"] {
            _ = try index.search(SearchQuery(text), limit: 10)  // never a syntax error
        }
        #expect(try index.search(SearchQuery("near(gate"), limit: 10).map(\.item.id) == ["1"])
    }

    @Test func sourcesAreReplacedAndRemovedWhole() throws {
        let index = SQLiteSearchIndex()
        try index.replace(source: "remote:alpha", with: [item("a1", "Pell", source: "remote:alpha")])
        try index.replace(source: "remote:beta", with: [item("b1", "Pell", source: "remote:beta")])
        try index.replace(source: "remote:alpha", with: [item("a2", "Mira", source: "remote:alpha")])
        #expect(try index.search(SearchQuery("pell"), limit: 10).map(\.item.id) == ["b1"])
        try index.removeSources(prefix: "remote:", keeping: ["remote:alpha"])
        #expect(try index.search(SearchQuery("pell"), limit: 10).isEmpty)
        #expect(try index.count() == 1)
    }

    @Test func itIsBounded() throws {
        let index = SQLiteSearchIndex(capacity: 10)
        let left = try index.replace(source: "s", with: (0..<25).map { item("\($0)", "item \($0)") })
        #expect(left == 15)
        #expect(try index.count() == 10)
        // An item's text is cut to its bounds, at a character.
        let long = String(repeating: "é", count: 10_000)
        let other = SQLiteSearchIndex()
        try other.replace(source: "s", with: [item("1", long, body: long)])
        let found = try other.search(SearchQuery("é"), limit: 1).first
        #expect(found?.item.title.utf8.count ?? 0 <= SearchItem.maxTitleBytes)
    }

    @Test func queriesAreWordsQuoted() {
        #expect(SearchQuery("Lady \"Bea\" NEAR(x)").expression == #""Lady"* AND "Bea"* AND "NEAR"* AND {title keywords} : "x"*"#)
        #expect(SearchQuery(String(repeating: "w ", count: 40)).words.count == SearchQuery.maxWords)
    }
}

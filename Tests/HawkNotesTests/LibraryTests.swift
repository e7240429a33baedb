import Foundation
import Testing
@testable import HandoffContent
@testable import HawkNotes

@Suite struct LibraryTests {
    @Test func shippedLibraryLoads() {
        #expect(shippedLibrary.books.count == 3)
        #expect(shippedLibrary.books.allSatisfy { $0.characters.count == 3 })
        #expect(shippedLibrary.book(id: IDs.burningSwift)?.title == "The Burning Swift")
    }

    @Test func queries() {
        let lib = shippedLibrary
        #expect(lib.character(id: IDs.beatrice)?.name == "Lady Beatrice")
        #expect(lib.book(introducing: IDs.beatrice)?.id == IDs.burningSwift)
        #expect(lib.book(introducing: lib.character(id: IDs.pell)!)?.id == IDs.saltAndLantern)
        #expect(lib.book(id: UUID()) == nil)
        #expect(lib.character(id: UUID()) == nil)
        #expect(lib.book(introducing: UUID()) == nil)
    }

    @Test func keywordSearch() {
        let lib = shippedLibrary
        #expect(lib.search("swift") == [.book(lib.book(id: IDs.burningSwift)!)])
        #expect(lib.search("BEATRICE") == [.character(lib.character(id: IDs.beatrice)!, in: lib.book(id: IDs.burningSwift)!)])
        #expect(lib.search("clockmaker's") == [.book(lib.book(id: IDs.clockmaker)!)])
        #expect(lib.search("lady beatrice").count == 1)
        #expect(lib.search("beatrice orrin").isEmpty)
        #expect(lib.search("   ").isEmpty)
        // Diacritics are ignored both ways.
        #expect(lib.search("pèll").count == 1)
    }

    @Test func duplicateBookID() {
        let data = libraryJSON { doc in editBook(&doc, 1) { $0["id"] = "11111111-1111-1111-1111-111111111111" } }
        #expect(throws: LibraryError.duplicateBookID(path: "$.books[1].id", id: "11111111-1111-1111-1111-111111111111")) {
            try Library(json: data)
        }
    }

    @Test func characterInTwoBooks() {
        let data = libraryJSON { doc in
            editBook(&doc, 1) { b in
                var chars = b["characters"] as! [[String: Any]]
                chars[1]["id"] = "AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA"
                b["characters"] = chars
            }
        }
        #expect(
            throws: LibraryError.characterInTwoBooks(
                path: "$.books[1].characters[1].id",
                id: "AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA",
                firstPath: "$.books[0].characters[0].id")
        ) {
            try Library(json: data)
        }
    }

    @Test func duplicateCharacterInOneBook() {
        let data = libraryJSON { doc in
            editBook(&doc, 1) { b in
                var chars = b["characters"] as! [[String: Any]]
                chars[1]["id"] = chars[0]["id"]
                b["characters"] = chars
            }
        }
        #expect(throws: LibraryError.duplicateCharacterID(path: "$.books[1].characters[1].id", id: "BBBBBBBB-BBBB-BBBB-BBBB-BBBBBBBBBBBB")) {
            try Library(json: data)
        }
    }

    @Test func badUUIDs() {
        let bookData = libraryJSON { doc in editBook(&doc, 0) { $0["id"] = "not-a-uuid" } }
        #expect(throws: LibraryError.badUUID(path: "$.books[0].id", value: "not-a-uuid")) { try Library(json: bookData) }
        let charData = libraryJSON { doc in
            editBook(&doc, 1) { b in
                var chars = b["characters"] as! [[String: Any]]
                chars[0]["id"] = "1234"
                b["characters"] = chars
            }
        }
        #expect(throws: LibraryError.badUUID(path: "$.books[1].characters[0].id", value: "1234")) { try Library(json: charData) }
    }

    @Test func structuralErrorsCarryThePath() {
        let missing = libraryJSON { doc in editBook(&doc, 1) { $0.removeValue(forKey: "title") } }
        #expect(throws: LibraryError.malformed(path: "$.books[1].title", reason: "missing")) { try Library(json: missing) }
        let wrongKind = libraryJSON { doc in editBook(&doc, 0) { $0["characters"] = "none" } }
        let e = #expect(throws: LibraryError.self) { try Library(json: wrongKind) }
        guard case .malformed(let path, _)? = e else {
            Issue.record("got \(String(describing: e))")
            return
        }
        #expect(path == "$.books[0].characters")
        #expect(throws: LibraryError.malformed(path: "$.books[0].characters", reason: "must be an array")) { try Library(json: wrongKind) }
        #expect(throws: LibraryError.malformed(path: "$", reason: "must be an object")) { try Library(json: Data("[]".utf8)) }
        let broken = #expect(throws: LibraryError.self) { try Library(json: Data("{".utf8)) }
        #expect(broken?.description.hasPrefix("library $: not valid JSON") == true, "\(String(describing: broken))")
    }

    @Test func badStoreURL() {
        let data = libraryJSON { doc in editBook(&doc, 0) { $0["storeURL"] = "ftp://example.org" } }
        #expect(throws: LibraryError.badURL(path: "$.books[0].storeURL", value: "ftp://example.org")) { try Library(json: data) }
    }

    @Test func unreadableFile() {
        let e = #expect(throws: LibraryError.self) { try Library(contentsOf: URL(fileURLWithPath: "/nonexistent/library.json")) }
        guard case .unreadable(let file, _)? = e else {
            Issue.record("got \(String(describing: e))")
            return
        }
        #expect(file == "/nonexistent/library.json")
    }
}

/// Where the shipped library is looked for, from a debug build's directory and from
/// build-release.sh's (`.build/dist/<triple>/release`, one level deeper).
@Suite struct LibraryCandidateTests {
    @Test func bothBuildLayoutsReachTheTreesConfig() {
        let debug = Library.candidates(besideBinaryIn: URL(fileURLWithPath: "/src/handoffd/.build/x86_64-unknown-linux-gnu/debug"))
        let release = Library.candidates(besideBinaryIn: URL(fileURLWithPath: "/src/handoffd/.build/dist/x86_64-unknown-linux-gnu/release"))
        #expect(debug.contains("/src/handoffd/config/library.json"))
        #expect(release.contains("/src/handoffd/config/library.json"))
        #expect(debug.first == "/usr/share/handoffd/library.json")
    }
}

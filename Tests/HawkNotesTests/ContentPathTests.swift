import Foundation
import Testing
@testable import HandoffContent
@testable import HawkNotes

@Suite struct ContentPathTests {
    let b = IDs.burningSwift.uuidString, c = IDs.beatrice.uuidString

    @Test func encodesAndParses() throws {
        let book = ContentPath(tabID: IDs.burningSwift)
        #expect(book.description == "b|\(b)")
        let char = ContentPath(tabID: IDs.burningSwift, itemID: IDs.beatrice)
        #expect(char.description == "b|\(b)::c|\(c)")
        #expect(try ContentPath(parsing: char.description) == char)
        #expect(try ContentPath(parsing: book.description) == book)
        #expect(try ContentPath(parsing: "b|\(b.lowercased())") == book)
        #expect(char.book == book)
    }

    @Test func eachMalformedFormIsADistinctError() {
        #expect(throws: ContentPathError.empty) { try ContentPath(parsing: "") }
        #expect(throws: ContentPathError.missingBookPart("c|\(c)")) { try ContentPath(parsing: "c|\(c)") }
        #expect(throws: ContentPathError.malformedSegment("x|\(b)")) { try ContentPath(parsing: "x|\(b)") }
        #expect(throws: ContentPathError.malformedSegment("b:\(c)")) { try ContentPath(parsing: "b|\(b)::b:\(c)") }
        #expect(throws: ContentPathError.tooManyParts("b|\(b)::c|\(c)::c|\(c)")) { try ContentPath(parsing: "b|\(b)::c|\(c)::c|\(c)") }
        #expect(throws: ContentPathError.badUUID("nope")) { try ContentPath(parsing: "b|nope") }
        #expect(throws: ContentPathError.badUUID(" \(b)")) { try ContentPath(parsing: "b| \(b)") }
        #expect(throws: ContentPathError.badUUID("")) { try ContentPath(parsing: "b|\(b)::c|") }
        #expect(throws: ContentPathError.malformedSegment("")) { try ContentPath(parsing: "b|\(b)::") }
    }

    @Test func resolvesAgainstTheLibrary() throws {
        let r = try shippedLibrary.resolve("b|\(b)::c|\(c)")
        #expect(r.book.id == IDs.burningSwift && r.character?.id == IDs.beatrice)
        #expect(try shippedLibrary.resolve("b|\(b)").character == nil)
    }

    @Test func resolutionErrors() {
        let unknown = UUID()
        #expect(throws: ContentPathError.unknownBook(unknown)) { try shippedLibrary.resolve("b|\(unknown.uuidString)") }
        #expect(throws: ContentPathError.unknownCharacter(unknown)) { try shippedLibrary.resolve("b|\(b)::c|\(unknown.uuidString)") }
        #expect(throws: ContentPathError.characterNotInBook(character: IDs.pell, book: IDs.burningSwift)) {
            try shippedLibrary.resolve("b|\(b)::c|\(IDs.pell.uuidString)")
        }
    }
}

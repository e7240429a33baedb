import Foundation
@testable import HandoffContent
@testable import HawkNotes

let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The shipped library, loaded from config/library.json.
let shippedLibrary = try! Library(contentsOf: repositoryRoot.appendingPathComponent("config/library.json"))

enum IDs {
    static let burningSwift = UUID(uuidString: "E34747BE-30DC-4DD8-B191-BC6C56B9B9A3")!
    static let beatrice = UUID(uuidString: "08D82D60-6977-42AA-9C22-AB1A07AE8A19")!
    static let orrin = UUID(uuidString: "9E23CB56-F618-4405-88FB-35178A3D729A")!
    static let saltAndLantern = UUID(uuidString: "BC3916FE-FD70-48BB-87C0-3D6DA3886131")!
    static let pell = UUID(uuidString: "9D39C53A-944E-416D-84CE-816017AF6C50")!
    static let clockmaker = UUID(uuidString: "4FEACF82-3302-4443-ABEA-3D616EAA79A0")!
}

/// A small library document for loader tests; `mutate` edits it before it is serialised.
func libraryJSON(_ mutate: (inout [String: Any]) -> Void = { _ in }) -> Data {
    func book(_ id: String, _ chars: [String]) -> [String: Any] {
        [
            "id": id, "title": "T\(id.prefix(4))", "imagePrefix": "p", "tagline": "t", "synopsis": "s",
            "storeURL": "https://example.org/\(id.prefix(4))", "notes": "n",
            "characters": chars.map { ["id": $0, "name": "N\($0.prefix(4))", "description": "d"] }
        ]
    }
    var doc: [String: Any] = [
        "books": [
            book("11111111-1111-1111-1111-111111111111", ["AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA"]),
            book("22222222-2222-2222-2222-222222222222", ["BBBBBBBB-BBBB-BBBB-BBBB-BBBBBBBBBBBB", "CCCCCCCC-CCCC-CCCC-CCCC-CCCCCCCCCCCC"])
        ]
    ]
    mutate(&doc)
    return try! JSONSerialization.data(withJSONObject: doc)
}

/// Edits book `b` of a library document.
func editBook(_ doc: inout [String: Any], _ b: Int, _ edit: (inout [String: Any]) -> Void) {
    var books = doc["books"] as! [[String: Any]]
    edit(&books[b])
    doc["books"] = books
}

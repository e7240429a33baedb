import HandoffCommandLine
import HandoffControl
import HandoffCore

struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library", abstract: "The content library: books and their characters.",
        subcommands: [Books.self, Characters.self]
    )

    struct Books: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "books", abstract: "List the books.")
        @OptionGroup var options: ClientOptions

        func run() throws {
            try options.run(LibraryBooksRequest()) { books in
                var t = Table("BOOK", "TITLE", "CHARACTERS")
                for b in books.items { t.add(b.id.canonicalString, b.title.terminalSafe, String(b.characters)) }
                t.print(empty: "The library is empty.")
            }
        }
    }

    struct Characters: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "characters", abstract: "List a book's characters.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The book's id or title.") var book: String

        func run() throws {
            try options.run(LibraryCharactersRequest(book: book)) { characters in
                var t = Table("CHARACTER", "NAME", "CONTENT PATH")
                for c in characters.items { t.add(c.id.canonicalString, c.name.terminalSafe, c.content.terminalSafe) }
                t.print(empty: "This book has no characters.")
            }
        }
    }
}

import ArgumentParser

struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "library", abstract: "The content library: books and their characters.",
                                                    subcommands: [Books.self, Characters.self])

    struct Books: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the books.")
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await options.run("library-books") { result in
                var t = Table("BOOK", "TITLE", "CHARACTERS")
                for b in result?.arrayValue ?? [] { t.add(b["id"], b["title"], b["characters"]) }
                t.print(empty: "The library is empty.")
            }
        }
    }

    struct Characters: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a book's characters.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The book's id or title.") var book: String

        func run() async throws {
            try await options.run("library-characters", ["book": .string(book)]) { result in
                var t = Table("CHARACTER", "NAME", "CONTENT PATH")
                for c in result?.arrayValue ?? [] { t.add(c["id"], c["name"], c["content"]) }
                t.print(empty: "This book has no characters.")
            }
        }
    }
}

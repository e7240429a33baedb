import ArgumentParser

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Push one of this machine's current activities to a paired machine, which continues it.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "The activity's id.") var activity: String
    @Option(help: "The machine to send it to.") var to: String

    func run() async throws {
        let client = try await options.connect()
        let result = await options.request(client, "send", ["activity": .string(activity), "to": .string(to)])
        await client.close()
        reportOutcome(result, json: options.json, options: options)
    }
}

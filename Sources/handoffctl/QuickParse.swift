import ArgumentParser

/// The command named first, parsed as a root of its own. ArgumentParser's parse from the root
/// first tries its two completion-script commands and walks the whole tree of 36 commands,
/// each a type to reflect: half of a one-shot command's start-up (docs/ARCHITECTURE.md,
/// "handoffctl's start"). Only a clean parse is taken here: a help request, a usage error or anything
/// else goes through the root, which says it the way it always has.
enum QuickParse {
    static func command(_ arguments: [String]) -> (any ParsableCommand)? {
        guard let name = arguments.first,
            let command = Handoffctl.configuration.subcommands.first(where: { $0.configuration.commandName == name }),
            let parsed = try? command.parseAsRoot(Array(arguments.dropFirst()))
        else { return nil }
        // `--help` parses to ArgumentParser's own help command, which would print the usage
        // from this command up, not from handoffctl: those are left to the root.
        return ours(command).contains(ObjectIdentifier(type(of: parsed))) ? parsed : nil
    }

    /// A command and every command under it.
    static func ours(_ command: any ParsableCommand.Type) -> Set<ObjectIdentifier> {
        command.configuration.subcommands.reduce(into: [ObjectIdentifier(command)]) { $0.formUnion(ours($1)) }
    }
}

extension CommandConfiguration {
    /// A subcommand's configuration as a root of its own (QuickParse): its usage still reads
    /// `handoffctl NAME`, and ArgumentParser skips the completion-script check it makes for a
    /// real root (`_superCommandName` is read only from the root of a parse).
    var underHandoffctl: CommandConfiguration {
        var configuration = self
        configuration._superCommandName = "handoffctl"
        return configuration
    }
}

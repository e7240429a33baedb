import Foundation
import HandoffTestSupport
import Testing

/// Issue 12, item 6: `handoffctl --socket P status` was refused (`Unknown option '--socket'`),
/// though the README wrote it first.
@Suite struct HandoffctlCommandLineTests {
    @Test(arguments: [
        ["--socket", "/nonexistent/control.sock", "status"], ["status", "--socket", "/nonexistent/control.sock"],
        ["--socket=/nonexistent/control.sock", "--json", "status"], ["--json", "--socket", "/nonexistent/control.sock", "scene", "list"]
    ])
    func socketBeforeOrAfterTheCommand(_ args: [String]) throws {
        let (status, output) = try runCommand([BuiltProducts.path("handoffctl")] + args)
        // 3: handoffd is not running there (not 64, wrong usage).
        #expect(status == 3, "\(output)")
        #expect(output.contains("/nonexistent/control.sock"), "\(output)")
    }
}

/// Issue 30, part 3: `pair --accept --yes` pinned whoever answered first. `--yes` now goes only
/// with `--code`, the code the other machine shows.
@Suite struct PairCommandLineTests {
    @Test(arguments: [["pair", "--accept", "--yes"], ["pair", "beta", "--yes"], ["pair", "beta", "--code", "12345"]])
    func yesWithoutTheCodeIsRefused(_ args: [String]) throws {
        let (status, output) = try runCommand([BuiltProducts.path("handoffctl")] + args + ["--socket", "/nonexistent/control.sock"])
        #expect(status == 64, "\(output)")
        #expect(output.contains("--code"), "\(output)")
    }
}

/// Issue 26: a command is parsed first as a root of its own (QuickParse: no completion-script
/// check, no walk of the whole tree). Its help and its usage errors must still come from
/// `handoffctl`, as a person has always read them.
@Suite struct QuickParseCommandLineTests {
    @Test(arguments: [
        (["status", "--help"], 0, "USAGE: handoffctl status [--socket <socket>] [--json]"),
        (["scene"], 0, "USAGE: handoffctl scene <subcommand>"),
        (["scene", "connect", "--help"], 0, "USAGE: handoffctl scene connect"),
        (["help", "send"], 0, "USAGE: handoffctl send"),
        (["status", "--bogus"], 64, "Usage: handoffctl status [--socket <socket>] [--json]"),
        (["send", "--socket", "/nonexistent/control.sock"], 64, "Usage: handoffctl send [--socket <socket>] [--json] <activity> --to <to>"),
        (["status", "--generate-completion-script", "bash"], 0, "_handoffctl()"),
        (["--generate-completion-script", "bash"], 0, "_handoffctl()"),
        (["nosuch"], 64, "Unexpected argument 'nosuch'")
    ])
    func helpAndUsageComeFromHandoffctl(_ args: [String], _ want: Int32, _ says: String) throws {
        let (status, output) = try runCommand([BuiltProducts.path("handoffctl")] + args)
        #expect(status == want, "\(output)")
        #expect(output.contains(says), "\(output)")
    }
}

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

import Foundation
import HandoffTestSupport
import Testing

/// scripts/install-deps.sh: the demo installs what it needs alone (it installed all 331 packages
/// of the tests), and a service the script installs for test hosts is not left enabled for the
/// machine's next boot, where it would run in the machine's own network namespace.
@Suite struct InstallScriptTests {
    static let script = TestHostSet.repositoryRoot.appendingPathComponent("scripts/install-deps.sh").path

    static func packages(_ arguments: [String]) throws -> Set<String> {
        let (status, output) = try runCommand(["/bin/bash", script, "--list"] + arguments)
        #expect(status == 0, "\(output)")
        return Set(output.split(separator: "\n").map(String.init))
    }

    @Test func theDemoInstallsWhatItNeedsAlone() throws {
        let demo = try Self.packages(["--demo"])
        let all = try Self.packages([])
        #expect(demo.isSubset(of: all) && demo.count < all.count)
        for needed in ["avahi-daemon", "tmux", "libncurses-dev", "iproute2"] { #expect(demo.contains(needed), "\(needed)") }
        for testsOnly in ["bind9", "lintian", "xvfb", "dunst", "mmdebstrap"] { #expect(!demo.contains(testsOnly), "\(testsOnly)") }
    }

    @Test func servicesForTestHostsAreNotEnabledForTheNextBoot() throws {
        let text = try String(contentsOfFile: Self.script, encoding: .utf8)
        #expect(text.contains("disable_units avahi-daemon avahi-daemon.service avahi-daemon.socket"))
        #expect(text.contains("disable_units bind9 named.service"))
        let (status, output) = try runCommand(["/bin/bash", Self.script, "--bogus"])
        #expect(status == 64 && output.contains("unknown option --bogus"), "\(output)")
    }
}

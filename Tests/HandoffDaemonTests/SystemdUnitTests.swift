import Foundation
import HandoffTestSupport
import Testing

@Suite struct SystemdUnitTests {
    static let unit = TestHostSet.repositoryRoot.appendingPathComponent("systemd/handoffd.service").path

    @Test func systemUnitExposureStaysAtMostTwo() throws {
        let (status, output) = try runCommand(["/usr/bin/systemd-analyze", "security", "--offline=yes", Self.unit])
        #expect(status == 0, "\(output.suffix(500))")
        let line = try #require(output.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(score <= 2.0, "\(line)")
    }

    @Test func unitsAreTypeNotifyWithAWatchdog() throws {
        for path in [Self.unit, TestHostSet.repositoryRoot.appendingPathComponent("systemd/user/handoffd.service").path] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("Type=notify") && text.contains("WatchdogSec=") && text.contains("NotifyAccess=main"), "\(path)")
        }
    }
}

import Testing
@testable import HandoffBus

/// libsystemd is loaded when a bus is joined, not at start (CSystemdBus).
@Suite struct BusLibraryLoadingTests {
    @Test func joiningABusLoadsLibsystemdAndSaysWhatFailed() {
        // Twice: the second connection finds the functions already there.
        for _ in 0..<2 {
            #expect {
                _ = try BusConnection(.address("unix:path=/nonexistent/handoffd-test-bus"))
            } throws: { error in
                // Loaded: the failure is the bus's (no such socket), not the library's.
                let failure = error as? BusFailure
                return failure?.name == "org.handoffd.Error.NoBus" && failure?.message.contains("cannot connect") == true
                    && failure?.message.contains("libsystemd") == false
            }
        }
    }
}

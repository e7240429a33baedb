import Foundation
import HandoffTestSupport
import Testing
@testable import HandoffLink
@testable import HandoffState

#if canImport(Glibc)
    import Glibc
#endif

/// On any stat() failure handoffd wrote a new identity over the old one (every
/// pairing gone); identity and SQLite files followed symbolic links; existing directories were not
/// checked for owner and mode.
@Suite struct PrivateFilesTests {
    @Test func aDanglingLinkIsAnErrorNotANewIdentity() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(IdentityKey.fileName).path
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/nonexistent/identity.key")
        #expect(throws: LinkError.self) { try IdentityKey.loadOrCreate(in: dir) }
        // Nothing was written over it.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == "/nonexistent/identity.key")
    }

    @Test func aLinkToARealKeyIsRefused() throws {
        let dir = try temporaryDirectory(), other = try temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: dir)
            try? FileManager.default.removeItem(at: other)
        }
        let real = try IdentityKey.loadOrCreate(in: other)
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent(IdentityKey.fileName).path,
            withDestinationPath: other.appendingPathComponent(IdentityKey.fileName).path)
        #expect(throws: LinkError.self) { try IdentityKey.loadOrCreate(in: dir) }
        #expect(try IdentityKey.loadOrCreate(in: other).identity == real.identity)
    }

    @Test func anExistingKeyLoadsAndOnlyAMissingOneIsMade() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try IdentityKey.loadOrCreate(in: dir)
        #expect(try IdentityKey.loadOrCreate(in: dir).identity == first.identity)
    }

    @Test func databaseFilesMustNotBeLinks() throws {
        let dir = try temporaryDirectory(), elsewhere = try temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: dir)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent(StateDatabase.fileName).path,
            withDestinationPath: elsewhere.appendingPathComponent("x.sqlite").path)
        #expect(throws: LinkError.self) { try StateDatabase(directory: dir) }
        #expect(!FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("x.sqlite").path))
        try FileManager.default.removeItem(atPath: dir.appendingPathComponent(StateDatabase.fileName).path)
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent(StateDatabase.fileName).path + "-wal",
            withDestinationPath: elsewhere.appendingPathComponent("x.wal").path)
        #expect(throws: LinkError.self) { try StateDatabase(directory: dir) }
    }

    @Test func directoriesMustBeOursAndClosed() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        chmod(dir.path, 0o700)
        try PrivateFiles.checkDirectory(dir.path)
        chmod(dir.path, 0o770)
        #expect(throws: LinkError.self) { try PrivateFiles.checkDirectory(dir.path) }
        chmod(dir.path, 0o707)
        #expect(throws: LinkError.self) { try PrivateFiles.checkDirectory(dir.path) }
        chmod(dir.path, 0o755)
        try PrivateFiles.checkDirectory(dir.path)
        if geteuid() == 0 {
            chown(dir.path, 65534, 65534)
            #expect(throws: LinkError.self) { try PrivateFiles.checkDirectory(dir.path) }
        }
    }
}

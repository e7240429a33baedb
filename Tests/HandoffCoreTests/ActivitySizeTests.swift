import Foundation
import Testing
@testable import HandoffCore

@Suite struct ActivitySizeTests {
    func activity(bytes: Int) throws -> UserActivity {
        var a = UserActivity(type: makeType())
        try a.addUserInfoEntries(["blob": .data(Data(count: bytes))])
        return a
    }

    @Test func smallIsFine() throws {
        let size = try activity(bytes: 100).measureSize()
        #expect(!size.isAboveWarning)
        #expect(size.bytes == (try activity(bytes: 100).encoded().count))
    }

    @Test func aboveThreeKBWarns() throws {
        let size = try activity(bytes: 4_000).measureSize()
        #expect(size.isAboveWarning)
    }

    @Test func aboveHardLimitStatesBothSizes() throws {
        let a = try activity(bytes: 70_000)
        let size = try a.encoded(limits: CodecLimits(maxBytes: .max)).count
        #expect(throws: ActivityError.tooLarge(size: size, limit: ActivitySizePolicy.defaultHardLimit)) { try a.measureSize() }
        #expect(ActivityError.tooLarge(size: size, limit: 100).description.contains("continuation stream"))
    }

    @Test func limitsAreConfigurable() throws {
        let a = try activity(bytes: 2_000)
        let policy = ActivitySizePolicy(warnAbove: 500, hardLimit: 1_000)
        let error = #expect(throws: ActivityError.self) { try a.measureSize(policy: policy) }
        guard case .tooLarge(_, 1_000)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(try a.measureSize(policy: ActivitySizePolicy(warnAbove: 500, hardLimit: 10_000)).isAboveWarning)
    }
}

import Foundation
import Testing
@testable import HandoffCore

@Suite struct DeclaredActivityTypesTests {
    let declared = try! DeclaredActivityTypes([
        ActivityTypeDeclaration(type: makeType("org.example.note"), requiredKeys: ["noteID"]),
        ActivityTypeDeclaration(type: makeType("org.example.point"), payload: "Point")
    ])

    @Test func undeclaredNamesTypeAndConfigKey() {
        let a = UserActivity(type: makeType("org.example.other"))
        #expect(throws: ActivityError.undeclaredType("org.example.other", configKey: "activity_types")) {
            try declared.validate(a, at: Date())
        }
        let text = ActivityError.undeclaredType("org.example.other", configKey: "activity_types").description
        #expect(text.contains("org.example.other") && text.contains("activity_types"))
    }

    @Test func duplicateDeclaration() {
        #expect(throws: ActivityError.duplicateDeclaration("a.b")) {
            try DeclaredActivityTypes([ActivityTypeDeclaration(type: makeType("a.b")), ActivityTypeDeclaration(type: makeType("a.b"))])
        }
    }

    @Test func requiredKeysFromDeclarationAndActivity() throws {
        var a = UserActivity(type: makeType("org.example.note"))
        #expect(throws: ActivityError.missingRequiredKey("noteID")) { try declared.validate(a, at: Date()) }
        try a.addUserInfoEntries(["noteID": "n1"])
        try declared.validate(a, at: Date())
        a.requiredUserInfoKeys = ["cursor"]
        #expect(throws: ActivityError.missingRequiredKey("cursor")) { try declared.validate(a, at: Date()) }
    }

    @Test func expiredIsRefused() throws {
        var a = UserActivity(type: makeType("org.example.note"))
        try a.addUserInfoEntries(["noteID": "n1"])
        let at = Date(timeIntervalSinceReferenceDate: 100)
        a.expirationDate = at
        #expect(throws: ActivityError.expired(at)) { try declared.validate(a, at: at) }
        try declared.validate(a, at: at.addingTimeInterval(-1))
    }

    @Test func declaredPayloadMustBePresentAndMatch() throws {
        struct Point: Codable { var x = 1 }
        struct Other: Codable { var y = 1 }
        var a = UserActivity(type: makeType("org.example.point"))
        #expect(throws: ActivityError.payloadMissing) { try declared.validate(a, at: Date()) }
        try a.setTypedPayload(Other())
        #expect(throws: ActivityError.payloadTypeMismatch(expected: "Point", found: "Other")) { try declared.validate(a, at: Date()) }
        try a.setTypedPayload(Point())
        try declared.validate(a, at: Date())
    }

    @Test func publishingNeedsEligibilityAndSize() throws {
        var a = UserActivity(type: makeType("org.example.note"))
        try a.addUserInfoEntries(["noteID": "n1"])
        a.isEligibleForHandoff = false
        #expect(throws: ActivityError.notEligibleForHandoff) { _ = try declared.validateForPublishing(a, at: Date()) }
        a.isEligibleForHandoff = true
        try a.addUserInfoEntries(["blob": .data(Data(count: 70_000))])
        let e = #expect(throws: ActivityError.self) { _ = try declared.validateForPublishing(a, at: Date()) }
        guard case .tooLarge(_, ActivitySizePolicy.defaultHardLimit)? = e else {
            Issue.record("got \(String(describing: e))")
            return
        }
    }

    @Test func continuationFailureMapping() {
        let t = makeType("org.example.note")
        #expect(ContinuationFailure(.missingRequiredKey("k"), type: t) == .missingRequiredKey(type: t.rawValue, key: "k"))
        #expect(ContinuationFailure(.undeclaredType("x", configKey: "c"), type: t) == .undeclaredType(type: t.rawValue))
        #expect(ContinuationFailure(.payloadMissing, type: t).code == "payload-decode-failed")
    }
}

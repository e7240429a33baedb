import Foundation
import HandoffCore
import Testing
@testable import HandoffContent
@testable import HawkNotes

@Suite struct RoutingTests {
    let router = ActivityRouter(
        declared: try! DeclaredActivityTypes(HawkNotes.declarations),
        handlers: try! HandlerRegistry(HawkNotes.handlers(library: shippedLibrary)))
    var beatrice: BookCharacter { shippedLibrary.character(id: IDs.beatrice)! }
    var burningSwift: Book { shippedLibrary.book(id: IDs.burningSwift)! }

    @Test func typeConstantsShareOnePrefix() {
        for t in [HawkNotes.characterDetail, HawkNotes.bookDetail, HawkNotes.draftNote] {
            #expect(t.rawValue.hasPrefix(HawkNotes.typePrefix + "."))
        }
    }

    @Test func characterDetailRoutesToTheIntroducingBook() throws {
        let activity = HawkNotes.characterDetailActivity(beatrice, in: burningSwift)
        let route = try router.route(activity)
        #expect(route == Route(tabID: IDs.burningSwift, navigationPath: [.item(IDs.beatrice)]))
        #expect(route.contentPath.description == activity.targetContentIdentifier)
    }

    @Test func bookDetailRoutesToTheTab() throws {
        #expect(try router.route(HawkNotes.bookDetailActivity(burningSwift)) == Route(tabID: IDs.burningSwift))
    }

    @Test func draftNoteRestoresText() throws {
        let route = try router.route(HawkNotes.draftNoteActivity(burningSwift, text: "Beatrice knew."))
        #expect(route == Route(tabID: IDs.burningSwift, draftText: "Beatrice knew."))
    }

    @Test func registryRefusesTwoHandlersForOneType() {
        let handlers = HawkNotes.handlers(library: shippedLibrary)
        #expect(throws: HandlerRegistryError.duplicateHandler(HawkNotes.bookDetail.rawValue)) {
            try HandlerRegistry(handlers + [handlers[1]])
        }
    }

    @Test func undeclaredType() {
        let a = UserActivity(type: try! ActivityType("org.other.thing"))
        #expect(throws: ContinuationFailure.undeclaredType(type: "org.other.thing")) { try router.route(a) }
    }

    @Test func declaredButNoHandler() {
        let t = try! ActivityType("org.other.thing")
        let r = ActivityRouter(
            declared: try! DeclaredActivityTypes(HawkNotes.declarations + [ActivityTypeDeclaration(type: t)]),
            handlers: router.handlers)
        #expect(throws: ContinuationFailure.noHandler(type: "org.other.thing")) { try r.route(UserActivity(type: t)) }
    }

    @Test func missingRequiredKey() throws {
        var a = UserActivity(type: HawkNotes.draftNote)
        try a.addUserInfoEntries(["bookID": .string(IDs.burningSwift.uuidString)])
        #expect(throws: ContinuationFailure.missingRequiredKey(type: HawkNotes.draftNote.rawValue, key: "draftText")) {
            try router.route(a)
        }
    }

    @Test func expired() {
        var a = HawkNotes.bookDetailActivity(burningSwift)
        let at = Date(timeIntervalSinceReferenceDate: 1)
        a.expirationDate = at
        #expect(throws: ContinuationFailure.expired(type: HawkNotes.bookDetail.rawValue, at: at)) { try router.route(a) }
    }

    @Test func payloadDecodeFailure() throws {
        struct NotACharacter: Codable, NamedActivityPayload {
            static let payloadTypeName = "Character"
            var x = 1
        }
        var a = UserActivity(type: HawkNotes.characterDetail)
        try a.setTypedPayload(NotACharacter())
        let e = #expect(throws: ContinuationFailure.self) { try router.route(a) }
        guard case .payloadDecodeFailed(let type, _)? = e else {
            Issue.record("got \(String(describing: e))")
            return
        }
        #expect(type == HawkNotes.characterDetail.rawValue)
        var b = HawkNotes.bookDetailActivity(burningSwift)
        try b.addUserInfoEntries(["bookID": "not-a-uuid"])
        let e2 = #expect(throws: ContinuationFailure.self) { try router.route(b) }
        guard case .payloadDecodeFailed? = e2 else {
            Issue.record("got \(String(describing: e2))")
            return
        }
    }

    @Test func contentNotFound() throws {
        let stranger = BookCharacter(id: UUID(), name: "Nobody", description: "")
        let a = HawkNotes.characterDetailActivity(stranger, in: burningSwift)
        #expect(throws: ContinuationFailure.contentNotFound(type: HawkNotes.characterDetail.rawValue, content: "c|\(stranger.id.uuidString)")) {
            try router.route(a)
        }
        var b = HawkNotes.bookDetailActivity(burningSwift)
        let missing = UUID().uuidString
        try b.addUserInfoEntries(["bookID": .string(missing)])
        #expect(throws: ContinuationFailure.contentNotFound(type: HawkNotes.bookDetail.rawValue, content: "b|\(missing)")) {
            try router.route(b)
        }
    }
}

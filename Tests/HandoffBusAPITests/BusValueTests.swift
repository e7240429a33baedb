import Foundation
import HandoffBusAPI
import HandoffCore
import Testing

/// The mapping between D-Bus values and control values (docs/DBUS.md, "Values").
@Suite struct BusValueTests {
    @Test func everyControlValueGoesAndComesBack() throws {
        let date = Date(timeIntervalSince1970: 1_795_600_000.5)
        let value: PropertyListValue = [
            "s": "text", "i": .integer(-42), "r": .real(2.0), "b": true, "d": .date(date), "x": .data(Data([0, 1, 255])),
            "a": .array(["one", .integer(2)]), "o": ["inner": "yes"]
        ]
        let bus = BusValue(value)
        #expect(bus.signature == "a{sv}")
        #expect(try bus.propertyList() == value)
    }

    @Test func argumentsOfAnyIntegerTypeAreIntegers() throws {
        for v: BusValue in [.byte(7), .int16(7), .uint16(7), .int32(7), .uint32(7), .int64(7), .uint64(7)] {
            #expect(try v.propertyList() == .integer(7))
        }
        #expect(throws: BusValueProblem.outOfRange) { try BusValue.uint64(.max).propertyList() }
        #expect(throws: BusValueProblem.unsupported("h (a file descriptor)")) { try BusValue.fd(3).propertyList() }
    }

    @Test func whatIsTooBigIsRefusedByItsSize() {
        let huge = BusValue.string(String(repeating: "x", count: 300 * 1024))
        #expect(throws: BusValueProblem.tooLong(CodecLimits.default.maxBytes)) { try huge.propertyList() }
        var deep = BusValue.vardict([])
        for _ in 0..<20 { deep = .vardict([("d", deep)]) }
        #expect(throws: BusValueProblem.tooDeep(CodecLimits.default.maxDepth)) { try deep.propertyList() }
        let many = BusValue.array(element: "v", Array(repeating: .variant(.int32(1)), count: 5_000))
        #expect(throws: BusValueProblem.tooMany(CodecLimits.default.maxValues)) { try many.propertyList() }
        let badDate = BusValue.vardict([("$date", .string("yesterday"))])
        #expect(throws: BusValueProblem.badDate("yesterday")) { try badDate.propertyList() }
        #expect(throws: BusValueProblem.unsupported("a dictionary with i keys (keys are strings)")) {
            try BusValue.dictionary(key: "i", value: "s", [.init(.int32(1), .string("x"))]).propertyList()
        }
    }

    @Test func signaturesSplitIntoCompleteTypes() {
        #expect(BusSignature.split("sa{sv}as") == ["s", "a{sv}", "as"])
        #expect(BusSignature.split("a(sssida{sv})") == ["a(sssida{sv})"])
        #expect(BusSignature.split("") == [])
        #expect(BusSignature.split("a{sv") == nil)
        #expect(BusSignature.split("z") == nil)
        #expect(BusValue.structure([.string("a"), .double(1), .vardict([])]).signature == "(sda{sv})")
    }
}

import StepwiseJSON
import Testing

/// Numbers (RFC 8259 §6, SEMANTICS §1.1): integers that fit `Int64` stay exact, everything else
/// is a finite double, and the grammar is strict.
struct JSONParserNumberTests {
    static let valid: [Named<(String, JSONValue)>] = [
        Named("0", ("0", .integer(0))),
        Named("-0 is the integer 0", ("-0", .integer(0))),
        Named("1", ("1", .integer(1))),
        Named("-1", ("-1", .integer(-1))),
        Named("123456789", ("123456789", .integer(123_456_789))),
        Named("Int64.max exact", ("9223372036854775807", .integer(.max))),
        Named("Int64.min exact", ("-9223372036854775808", .integer(.min))),
        Named("2^63 becomes a double", ("9223372036854775808", .double(9_223_372_036_854_775_808.0))),
        Named("-2^63-1 becomes a double", ("-9223372036854775809", .double(-9_223_372_036_854_775_808.0))),
        Named("2^64 becomes a double", ("18446744073709551616", .double(18_446_744_073_709_551_616.0))),
        Named("1e23 as digits", ("100000000000000000000000", .double(1e23))),
        Named("1.0 is a double", ("1.0", .double(1.0))),
        Named("1.5", ("1.5", .double(1.5))),
        Named("-1.5", ("-1.5", .double(-1.5))),
        Named("-0.0 keeps its sign", ("-0.0", .double(-0.0))),
        Named("-0e0 keeps its sign", ("-0e0", .double(-0.0))),
        Named("0.1", ("0.1", .double(0.1))),
        Named("0.30000000000000004", ("0.30000000000000004", .double(0.30000000000000004))),
        Named("1e2", ("1e2", .double(100))),
        Named("1E2", ("1E2", .double(100))),
        Named("1e+2", ("1e+2", .double(100))),
        Named("1e-2", ("1e-2", .double(0.01))),
        Named("0e0", ("0e0", .double(0))),
        Named("0.0001", ("0.0001", .double(0.0001))),
        Named("123.456e-2", ("123.456e-2", .double(1.23456))),
        Named("1e22 (fast path edge)", ("1e22", .double(1e22))),
        Named("1e23 (beyond fast path)", ("1e23", .double(1e23))),
        Named("9007199254740993 with fraction", ("9007199254740993.0", .double(9_007_199_254_740_992.0))),
        Named("many fraction digits", ("3.14159265358979323846264338327950288", .double(.pi))),
        Named("smallest subnormal 5e-324", ("5e-324", .double(.leastNonzeroMagnitude))),
        Named("smallest normal", ("2.2250738585072014e-308", .double(.leastNormalMagnitude))),
        Named("largest finite", ("1.7976931348623157e308", .double(.greatestFiniteMagnitude))),
        Named("largest finite negative", ("-1.7976931348623157e308", .double(-.greatestFiniteMagnitude))),
        Named("underflow to zero is finite", ("1e-400", .double(0))),
        Named("exponent with leading zeros", ("1e007", .double(1e7))),
        Named("huge exponent on zero", ("0e99999999999", .double(0))),
        Named("number in array", ("[-12.5e1]", [.double(-125)])),
    ]

    @Test(arguments: valid)
    func parsesNumber(_ c: Named<(String, JSONValue)>) throws {
        let value = try JSONParser.parse(c.value.0)
        #expect(identical(value, c.value.1), "got \(value)")
    }

    static let invalid: [Named<(String, Int)>] = [
        Named("lone minus", ("-", 0)),
        Named("double minus", ("--1", 0)),
        Named("minus then dot", ("-.5", 0)),
        Named("1.", ("1.", 0)),
        Named(".5", (".5", 0)),
        Named("1e", ("1e", 0)),
        Named("1e+", ("1e+", 0)),
        Named("1E-", ("1E-", 0)),
        Named("1.e5", ("1.e5", 0)),
        Named("+1", ("+1", 0)),
        Named("leading zero 01", ("01", 0)),
        Named("leading zeros 00", ("00", 0)),
        Named("negative leading zero -01", ("-01", 0)),
        Named("leading zero before fraction 00.5", ("00.5", 0)),
        Named("hex", ("0x10", 1)),
        Named("two dots", ("1.5.2", 3)),
        Named("Infinity", ("Infinity", 0)),
        Named("-Infinity", ("-Infinity", 0)),
        Named("NaN", ("NaN", 0)),
        Named("1e400 is out of range", ("1e400", 0)),
        Named("-1e400 is out of range", ("-1e400", 0)),
        Named("1.8e308 is out of range", ("1.8e308", 0)),
        Named("400-digit integer is out of range", ("1" + String(repeating: "0", count: 400), 0)),
        Named("out of range inside an array", ("[1, 1e999]", 4)),
        Named("1. inside an array", ("[1.]", 1)),
        Named("space inside a number", ("- 1", 0)),
        Named("comma decimal separator", ("[1,5.]", 3)),
    ]

    @Test(arguments: invalid)
    func rejectsNumberAtOffset(_ c: Named<(String, Int)>) {
        let error = parseFailure(c.value.0)
        #expect(error?.code == .invalidJSON)
        #expect(error?.offset == c.value.1, "\(error.map(String.init(describing:)) ?? "")")
    }

    @Test func outOfRangeMessageNamesTheNumber() {
        #expect(parseFailure("1e400")?.message == "number 1e400 is out of range")
        let long = parseFailure("1" + String(repeating: "9", count: 500))?.message ?? ""
        #expect(long.utf8.count < 80, "the message shortens a long token: \(long)")
    }

    /// Random decimal texts parse to exactly what the standard library's correctly rounded
    /// conversion gives, on both sides of the parser's fast path.
    @Test(arguments: 0..<8)
    func decimalTextsMatchCorrectRounding(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed))
        for _ in 0..<2_000 {
            let digits = Int.random(in: 1...22, using: &rng)
            var text = Bool.random(using: &rng) ? "-" : ""
            var integer = String(Int.random(in: 1...9, using: &rng))
            for _ in 1..<digits { integer.append(String(Int.random(in: 0...9, using: &rng))) }
            let point = Int.random(in: 1...digits, using: &rng)
            let mantissa = point == digits
                ? integer + ".0"
                : String(integer.prefix(point)) + "." + String(integer.dropFirst(point))
            text += mantissa
            if Bool.random(using: &rng) { text += "e\(Int.random(in: -30...30, using: &rng))" }
            let expected = try #require(Double(text))
            let value = try JSONParser.parse(text)
            #expect(identical(value, .double(expected)), "\(text) → \(value), expected \(expected)")
        }
    }

    /// Random integers of every magnitude parse exactly.
    @Test(arguments: 0..<4)
    func integersAreExact(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &+ 100)
        for _ in 0..<2_000 {
            let n = Int64(bitPattern: rng.next()) >> Int64.random(in: 0...63, using: &rng)
            #expect(identical(try JSONParser.parse(String(n)), .integer(n)))
        }
    }
}

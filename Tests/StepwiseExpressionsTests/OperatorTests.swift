import StepwiseExpressions
import StepwiseJSON
import Testing

/// SEMANTICS §3.3, §3.5 and §3.6: every operator against every kind of operand.
struct OperatorTests {
    static let equality: [(String, Bool)] = [
        ("5 == 5", true), ("5 == 5.0", true), ("5.0 == 5", true), ("0 == -0", true), ("5 == 6", false),
        ("5 == '5'", false), ("1 == true", false), ("0 == false", false), ("'' == null", false),
        ("null == null", true), ("nul == null", true), ("missing == null", true), ("'a' == 'a'", true),
        ("'a' == 'A'", false), ("true == true", true), ("true == false", false),
        ("[1, 2] == [1.0, 2.0]", true), ("[1, 2] == [2, 1]", false), ("[1, [2, 3]] == [1, [2, 3.0]]", true),
        ("[] == []", true), ("[] == null", false), ("o1 == o2", true), ("o1 == obj", false), ("eobj == eobj", true),
        ("arr == [1, 2, 3]", true), ("obj.b == [10, 20]", true), ("'\\u00e9' == 'e\\u0301'", false),
        ("5 != '5'", true), ("missing != 'x'", true), ("null != null", false), ("[1] != [1.0]", false),
        ("'abc' != s", false), ("1 + 2 == 3", true), ("0.1 + 0.2 == 0.3", false),
    ]

    @Test("== and != compare type and value, numbers by value at any depth", arguments: equality)
    func equalityOperators(_ text: String, _ expected: Bool) throws {
        #expect(try evaluate(text) == .value(.bool(expected)))
    }

    static let ordering: [(String, Bool)] = [
        ("1 < 2", true), ("2 < 1", false), ("1 <= 1", true), ("1 >= 1.0", true), ("2.5 > 2", true),
        ("-1 < 0", true), ("9007199254740993 > 9007199254740992", true),
        ("'a' < 'b'", true), ("'B' < 'a'", true), ("'abc' < 'abd'", true), ("'ab' < 'abc'", true),
        ("'z' < '\\u00e9'", true), ("'a' <= 'a'", true), ("'b' >= 'a'", true), ("'10' < '9'", true),
        ("'10' > 5", false), ("'10' < 5", false), ("'10' >= 5", false), ("'10' <= 5", false),
        ("null >= null", false), ("null <= null", false), ("null < 1", false), ("true > false", false),
        ("true >= true", false), ("[1] < [2]", false), ("o1 <= o1", false), ("missing < 1", false),
        ("n > 4", true), ("n < 4", false), ("4 < n", true), ("4 > n", false), ("f <= 2.5", true),
    ]

    @Test("<, <=, >, >=: numbers by value, strings by bytes, every other pair false", arguments: ordering)
    func orderingOperators(_ text: String, _ expected: Bool) throws {
        #expect(try evaluate(text) == .value(.bool(expected)))
    }

    static let membership: [(String, Bool)] = [
        ("2 in [1, 2, 3]", true), ("4 in [1, 2, 3]", false), ("'2' in [1, 2]", false), ("1 in [1.0]", true),
        ("[1] in [[1], [2]]", true), ("null in [null]", true), ("'a' in 'abc'", false), ("'a' in obj", false),
        ("'x' in list", true), ("1 in null", false), ("1 in 1", false), ("'approved' in [status]", true),
        ("2 in arr", true),
    ]

    @Test("in: element == on arrays, false for anything else", arguments: membership)
    func membershipOperator(_ text: String, _ expected: Bool) throws {
        #expect(try evaluate(text) == .value(.bool(expected)))
    }

    static let arithmetic: [(String, String)] = [
        ("1 + 2", "3"), ("'a' + 'b'", "\"ab\""), ("s + 'd'", "\"abcd\""), ("'3' + 2", "5"), ("2 + '3'", "5"),
        ("'a' + 1", "null"), ("1 + 'a'", "null"), ("true + 1", "2"), ("false + false", "0"), ("null + 1", "null"),
        ("[1] + 1", "null"), ("obj + 1", "null"), ("'' + 1", "null"), ("'1e3' + 0", "1000"), ("' 5' + 0", "null"),
        ("'inf' + 0", "null"), ("'0x1' + 0", "null"), ("'+5' + 0", "5"), ("'-5.5' + 0", "-5.5"), ("'5.' + 0", "null"),
        ("'.5' + 0", "null"), ("'1e' + 0", "null"), ("'1E-2' + 0", "0.01"), ("'1 ' + 0", "null"),
        ("'1' + '2'", "\"12\""), ("1e308 + 1e308", "null"), ("10 - 4 - 3", "3"), ("'10' - '4'", "6"),
        ("'a' - 1", "null"), ("2 * 3", "6"), ("'2' * true", "2"), ("null * 2", "null"), ("7 / 2", "3.5"),
        ("1 / 0", "null"), ("0 / 0", "null"), ("'6' / '2'", "3"), ("7 % 3", "1"), ("-7 % 3", "-1"),
        ("7 % -3", "1"), ("5.5 % 2", "1.5"), ("1 % 0", "null"), ("'7' % 4", "3"), ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"), ("2 * 3 % 4", "2"), ("10 / 2 * 5", "25"), ("1 - -1", "2"), ("-2 * 3", "-6"),
        ("-'3'", "-3"), ("-true", "-1"), ("-null", "null"), ("-'a'", "null"), ("- -3", "3"), ("-n", "-5"),
        ("-arr", "null"), ("n * f", "12.5"), ("1e2", "100"), ("2.5e-1", "0.25"), ("1E+1", "10"),
        ("9223372036854775807", "9223372036854775807"), ("9223372036854775808", "9223372036854775808"),
    ]

    @Test("+ - * / % and unary -: to-number coercion, null when impossible", arguments: arithmetic)
    func arithmeticOperators(_ text: String, _ expected: String) throws {
        #expect(try evaluate(text) == .value(json(expected)))
    }

    @Test("arithmetic results are doubles, literals keep their integer type")
    func arithmeticResultsAreDoubles() throws {
        #expect(sameKind(try #require(try evaluate("1 + 2").value), .double(3)))
        #expect(sameKind(try #require(try evaluate("-3").value), .double(-3)))
        #expect(sameKind(try #require(try evaluate("3").value), .integer(3)))
        #expect(sameKind(try #require(try evaluate("2.0").value), .double(2)))
        #expect(sameKind(try #require(try evaluate("n").value), .integer(5)))
    }

    static let logic: [(String, Bool)] = [
        ("!0", true), ("!1", false), ("!''", true), ("!'false'", false), ("!'0'", false), ("![]", true),
        ("![0]", false), ("!eobj", false), ("!null", true), ("!missing", true), ("!!s", true), ("!true == false", true),
        ("'a' && 'b'", true), ("1 && 0", false), ("0 || ''", false), ("'x' || 0", true), ("null || []", false),
        ("eobj && true", true), ("true || false && false", true), ("false && true || true", true),
        ("(true || false) && false", false), ("n > 1 && s == 'abc'", true), ("n > 9 || s == 'abc'", true),
        ("!(n > 1)", false),
    ]

    @Test("! && ||: always a bool, && binds tighter than ||", arguments: logic)
    func logicalOperators(_ text: String, _ expected: Bool) throws {
        #expect(try evaluate(text) == .value(.bool(expected)))
    }

    static let conditionals: [(String, String)] = [
        ("1 ? 'a' : 'b'", "\"a\""), ("0 ? 'a' : 'b'", "\"b\""), ("eobj ? 1 : 2", "1"), ("'' ? 1 : 2", "2"),
        ("false ? 1 : true ? 2 : 3", "2"), ("false ? 1 : false ? 2 : 3", "3"), ("true ? false ? 1 : 2 : 3", "2"),
        ("true ? 1 : clamp(1, 5, 1)", "1"), ("false ? clamp(1, 5, 1) : 2", "2"), ("n > 3 ? s : n", "\"abc\""),
        ("(t ? arr : empty)[1]", "2"),
    ]

    @Test("?: picks by truthiness, right-associative, only the chosen branch runs", arguments: conditionals)
    func conditionalOperator(_ text: String, _ expected: String) throws {
        #expect(try evaluate(text) == .value(json(expected)))
    }

    static let truthiness: [(String, Bool)] = [
        ("null", false), ("false", false), ("0", false), ("-0", false), ("0.0", false), ("\"\"", false),
        ("[]", false), ("true", true), ("1", true), ("-1", true), ("0.5", true), ("\"false\"", true),
        ("\"0\"", true), ("\" \"", true), ("[0]", true), ("[null]", true), ("{}", true), ("{\"a\": false}", true),
    ]

    @Test("truthiness table of §3.5", arguments: truthiness)
    func truthinessTable(_ valueText: String, _ expected: Bool) throws {
        let value = json(valueText)
        #expect(value.isTruthy == expected)
        let result = try evaluate("v ? 'yes' : 'no'", data: ["v": value])
        #expect(result == .value(.string(expected ? "yes" : "no")))
        #expect(try Expression.compile("v").evaluate(EvaluationScope(data: ["v": value])).truthiness == expected)
    }
}

import StepwiseExpressions
import StepwiseJSON
import Testing

/// `now()`, `format_date()` and `day_of_week()` (SEMANTICS §3.7), computed without Foundation.
struct DateFunctionTests {
    static let nowCases: [(Int64, String)] = [
        (0, "1970-01-01T00:00:00.000Z"), (1, "1970-01-01T00:00:00.001Z"), (-1, "1969-12-31T23:59:59.999Z"),
        (1_700_000_000_123, "2023-11-14T22:13:20.123Z"), (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"), (1_709_164_800_000, "2024-02-29T00:00:00.000Z"),
    ]

    @Test("now() is the engine clock as RFC 3339 UTC with milliseconds", arguments: nowCases)
    func now(_ ms: Int64, _ expected: String) throws {
        #expect(try evaluate("now()", now: ms) == .value(.string(expected)))
    }

    static let formats: [(String, String)] = [
        ("format_date('2024-03-05T07:08:09Z')", "2024-03-05"),
        ("format_date('2024-03-05T07:08:09Z', '%Y-%m-%d %H:%M:%S')", "2024-03-05 07:08:09"),
        ("format_date('2024-03-05T07:08:09+05:30', '%H:%M %z %:z')", "07:08 +0530 +05:30"),
        ("format_date('2024-03-05T23:30:00-08:00', '%F')", "2024-03-05"),
        ("format_date('2024-03-05T07:08:09Z', '%z %:z')", "+0000 +00:00"),
        ("format_date('2024-03-05T07:08:09Z', '%C %y %m %b %B %h')", "20 24 03 Mar March Mar"),
        ("format_date('2024-03-05T07:08:09Z', '%d %e %j')", "05  5 065"),
        ("format_date('2024-03-05T07:08:09Z', '%-d %-e %-j %-m %-H')", "5 5 65 3 7"),
        ("format_date('2024-03-05T07:08:09Z', '%a %A %u %w')", "Tue Tuesday 2 2"),
        ("format_date('2024-03-10T00:00:00Z', '%a %u %w')", "Sun 7 0"),
        ("format_date('2024-03-05T00:08:09Z', '%H %I %p')", "00 12 AM"),
        ("format_date('2024-03-05T12:08:09Z', '%I %p')", "12 PM"),
        ("format_date('2024-03-05T19:08:09Z', '%I %-I %p')", "07 7 PM"),
        ("format_date('2024-03-05T07:08:09Z', '%T|%D|%R|%%')", "07:08:09|03/05/24|07:08|%"),
        ("format_date('2024-12-31T10:00:00Z', '%j')", "366"),
        ("format_date('2023-12-31T10:00:00Z', '%j')", "365"),
        ("format_date('2024-03-05T07:08:09.123456Z', '%S')", "09"),
        ("format_date('2024-03-05t07:08:09z', '%F %T')", "2024-03-05 07:08:09"),
        ("format_date('2016-12-31T23:59:60Z', '%S')", "60"),
        ("format_date('0999-01-01T00:00:00Z', '%Y %-Y %C %y')", "0999 999 09 99"),
        ("format_date('2024-03-05T07:08:09Z', 'week day %u of %Y')", "week day 2 of 2024"),
        ("format_date('2024-03-05T07:08:09Z', '')", ""),
        // invalid timestamps → null
        ("format_date('2024-03-05')", "null"), ("format_date('2024-03-05T07:08:09')", "null"),
        ("format_date('2024-02-30T00:00:00Z')", "null"), ("format_date('2023-02-29T00:00:00Z')", "null"),
        ("format_date('2024-13-01T00:00:00Z')", "null"), ("format_date('2024-01-01T24:00:00Z')", "null"),
        ("format_date('2024-01-01 00:00:00Z')", "null"), ("format_date('2024-01-01T00:00:00+0100')", "null"),
        ("format_date('2024-01-01T00:00:00.Z')", "null"), ("format_date('2024-1-01T00:00:00Z')", "null"),
        ("format_date(42)", "null"), ("format_date(null)", "null"), ("format_date('x', '%Y')", "null"),
        ("format_date('2024-01-01T00:00:00Z', 5)", "null"),
    ]

    @Test("format_date conversions in the C locale, in the timestamp's own offset", arguments: formats)
    func formatDate(_ text: String, _ expected: String) throws {
        let value: JSONValue = expected == "null" ? .null : .string(expected)
        #expect(try evaluate(text) == .value(value), "\(text)")
    }

    static let invalidConversions: [(String, String)] = [
        ("format_date('2024-03-05T07:08:09Z', '%Q')", "format_date: unsupported conversion '%Q'"),
        ("format_date('2024-03-05T07:08:09Z', '100%')", "format_date: unsupported conversion '%'"),
        ("format_date('2024-03-05T07:08:09Z', '%E')", "format_date: unsupported conversion '%E'"),
        ("format_date('not a date', '%k')", "format_date: unsupported conversion '%k'"),
        ("format_date('2024-03-05T07:08:09Z', '%:y')", "format_date: unsupported conversion '%:y'"),
        ("format_date('2024-03-05T07:08:09Z', '%-')", "format_date: unsupported conversion '%-'"),
    ]

    @Test("an unsupported conversion is a runtime error starting with format_date", arguments: invalidConversions)
    func invalidConversion(_ text: String, _ message: String) throws {
        let result = try evaluate(text)
        #expect(result.errorMessage?.hasPrefix(message) == true, "\(result)")
    }

    static let weekdays: [(String, String)] = [
        ("2024-01-01T00:00:00Z", "0"), ("2024-01-07T12:00:00Z", "6"), ("1970-01-01T00:00:00Z", "3"),
        ("2000-02-29T10:00:00+02:00", "1"), ("2024-03-10T23:30:00-05:00", "6"), ("2024-03-11T04:30:00Z", "0"),
        ("1969-12-31T23:59:59Z", "2"), ("2024-02-30T00:00:00Z", "null"), ("2024-01-01", "null"), ("nope", "null"),
    ]

    @Test("day_of_week: 0 = Monday … 6 = Sunday in the timestamp's own offset", arguments: weekdays)
    func dayOfWeek(_ iso: String, _ expected: String) throws {
        #expect(try evaluate("day_of_week(d)", data: ["d": .string(iso)]) == .value(json(expected)))
        #expect(try evaluate("day_of_week(5)") == .value(.null))
    }
}

/// Seeded property checks: the hand-written calendar agrees with itself and with day counts.
struct CalendarPropertyTests {
    @Test("now() round-trips through format_date and day_of_week", arguments: [UInt64(1), 2, 3])
    func roundTrip(_ seed: UInt64) throws {
        let source = RandomSource(seed: seed)
        let expression = try Expression.compile(
            "format_date(now(), '%Y-%m-%dT%H:%M:%S') + '|' + json(day_of_week(now())) + '|' + format_date(now(), '%j')")
        for _ in 0..<500 {
            // Between 1900 and 2200.
            let ms = Int64(bitPattern: source.next() % 9_467_280_000_000) - 2_208_988_800_000
            let scope = EvaluationScope(nowMilliseconds: ms)
            let now = try #require(try Expression.compile("now()").evaluate(scope).value?.stringValue)
            let parts = try #require(expression.evaluate(scope).value?.stringValue).split(separator: "|")
            #expect(String(parts[0]) == String(now.prefix(19)))
            let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
            // 1970-01-01 was a Thursday (3 with Monday = 0).
            let weekday = ((days % 7) + 7 + 3) % 7
            #expect(String(parts[1]) == String(weekday))
            let dayOfYear = try #require(Int(parts[2]))
            #expect((1...366).contains(dayOfYear))
        }
    }
}

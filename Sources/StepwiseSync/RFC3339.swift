import StepwiseJSON

/// RFC 3339 timestamps (`2026-01-01T00:00:00Z`, `2026-01-01T01:00:00.5+01:00`) ↔ Unix milliseconds.
///
/// Parsing is strict: four-digit year, two-digit fields in range (leap years checked), `T` and
/// `Z` in either case, an optional fraction (truncated to milliseconds) and a `Z` or `±HH:MM`
/// offset. Formatting writes UTC with whole seconds and `Z`, as publishers do (SYNC.md §3.11).
package enum RFC3339 {
    /// Unix milliseconds of `text`, or `nil` when it is not an RFC 3339 date-time.
    package static func milliseconds(from text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for i in start..<(start + count) {
                guard (0x30...0x39).contains(b[i]) else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard let year = digits(0, 4), b[4] == 0x2D, let month = digits(5, 2), b[7] == 0x2D, let day = digits(8, 2),
            b[10] == 0x54 || b[10] == 0x74, let hour = digits(11, 2), b[13] == 0x3A, let minute = digits(14, 2),
            b[16] == 0x3A, let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, Int64(day) <= CivilCalendar.daysInMonth(year: Int64(year), month: Int64(month)), hour <= 23,
            minute <= 59, second <= 60
        else { return nil }
        var i = 19
        var millis = 0
        if i < b.count, b[i] == 0x2E {
            i += 1
            let start = i
            while i < b.count, (0x30...0x39).contains(b[i]) {
                if i - start < 3 { millis = millis * 10 + Int(b[i] - 0x30) }
                i += 1
            }
            guard i > start else { return nil }
            for _ in 0..<max(0, 3 - (i - start)) { millis *= 10 }
        }
        guard i < b.count else { return nil }
        var offsetMinutes = 0
        if b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if b[i] == 0x2B || b[i] == 0x2D {
            guard let oh = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == 0x3A, let om = digits(i + 4, 2), oh <= 23,
                om <= 59
            else { return nil }
            offsetMinutes = (oh * 60 + om) * (b[i] == 0x2D ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = CivilCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(millis)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for Unix milliseconds `ms` (the fraction is dropped).
    package static func string(fromMilliseconds ms: Int64) -> String { CivilCalendar.rfc3339WholeSeconds(milliseconds: ms) }
}

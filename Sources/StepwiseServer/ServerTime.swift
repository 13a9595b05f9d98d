import StepwiseJSON

/// RFC 3339 timestamps ↔ milliseconds since the Unix epoch.
///
/// The server writes `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, milliseconds) and reads any RFC 3339
/// date-time: `T` or `t` (or a space), optional fraction (truncated to milliseconds), `Z`, `z`
/// or a `±HH:MM` offset.
enum ServerTime {
    /// `ms` as `2026-05-19T10:30:00.004Z`.
    static func format(_ ms: Int64) -> String { CivilCalendar.rfc3339(milliseconds: ms) }

    /// Milliseconds since the epoch of an RFC 3339 date-time, or `nil` when `text` is not one.
    static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var value: Int64 = 0
            for k in i..<(i + n) {
                guard (48...57).contains(b[k]) else { return nil }
                value = value * 10 + Int64(b[k] - 48)
            }
            i += n
            return value
        }
        func expect(_ chars: Set<UInt8>) -> Bool {
            guard i < b.count, chars.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect([45]), let month = digits(2), expect([45]), let day = digits(2),
            expect([84, 116, 32]), let hour = digits(2), expect([58]), let minute = digits(2), expect([58]),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...CivilCalendar.daysInMonth(year: year, month: month)).contains(day), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var millis: Int64 = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var count = 0
            while i < b.count, (48...57).contains(b[i]) {
                if count < 3 { millis = millis * 10 + Int64(b[i] - 48) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            if count < 3 { for _ in 0..<(3 - count) { millis *= 10 } }
        }
        var offset: Int64 = 0
        if expect([90, 122]) {
            offset = 0
        } else if i < b.count, b[i] == 43 || b[i] == 45 {
            let sign: Int64 = b[i] == 45 ? -1 : 1
            i += 1
            guard let oh = digits(2), expect([58]), let om = digits(2), oh < 24, om < 60 else { return nil }
            offset = sign * (oh * 60 + om) * 60_000
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        return days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + min(second, 59) * 1000 + millis - offset
    }
}

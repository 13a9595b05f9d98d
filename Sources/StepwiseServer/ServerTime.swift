/// RFC 3339 timestamps ↔ milliseconds since the Unix epoch.
///
/// The server writes `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, milliseconds) and reads any RFC 3339
/// date-time: `T` or `t` (or a space), optional fraction (truncated to milliseconds), `Z`, `z`
/// or a `±HH:MM` offset.
enum ServerTime {
    /// `ms` as `2026-05-19T10:30:00.004Z`.
    static func format(_ ms: Int64) -> String {
        let days = floorDivide(ms, 86_400_000)
        let msOfDay = ms - days * 86_400_000
        let (year, month, day) = civil(fromDays: days)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let milli = msOfDay % 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(milli, 3))Z"
    }

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
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
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
        let days = days(fromCivil: year, month, day)
        return days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + min(second, 59) * 1000 + millis - offset
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day count since 1970-01-01.
    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDivide(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

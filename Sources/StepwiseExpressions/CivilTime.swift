import StepwiseJSON

/// A proleptic-Gregorian date and wall-clock time with a UTC offset, computed by hand (no
/// Foundation): the basis of `now()`, `format_date()` and `day_of_week()`.
struct CivilTime: Sendable, Hashable {
    var year: Int64
    /// 1…12.
    var month: Int
    /// 1…31.
    var day: Int
    var hour: Int
    var minute: Int
    /// 0…60 (a leap second is kept as written).
    var second: Int
    var millisecond: Int
    /// Minutes east of UTC.
    var offsetMinutes: Int

    init(
        year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int = 0,
        offsetMinutes: Int = 0
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
        self.offsetMinutes = offsetMinutes
    }

    /// The UTC time of a Unix epoch millisecond count.
    init(unixMilliseconds ms: Int64) {
        let msPerDay: Int64 = 86_400_000
        var days = ms / msPerDay
        var rest = ms % msPerDay
        if rest < 0 {
            rest += msPerDay
            days -= 1
        }
        let date = CivilCalendar.date(fromDays: days)
        self.init(
            year: date.year, month: Int(date.month), day: Int(date.day),
            hour: Int(rest / 3_600_000), minute: Int(rest / 60_000 % 60), second: Int(rest / 1000 % 60),
            millisecond: Int(rest % 1000))
    }

    /// Days since 1970-01-01 of a civil date.
    static func days(fromCivil year: Int64, _ month: Int, _ day: Int) -> Int64 {
        CivilCalendar.days(year: year, month: Int64(month), day: Int64(day))
    }

    /// ISO weekday of the wall-clock date: 1 = Monday … 7 = Sunday.
    var isoWeekday: Int {
        let days = Self.days(fromCivil: year, month, day)
        // 1970-01-01 was a Thursday (4).
        let r = Int(((days % 7) + 7) % 7)
        return (r + 3) % 7 + 1
    }

    /// 1…366.
    var dayOfYear: Int {
        Int(Self.days(fromCivil: year, month, day) - Self.days(fromCivil: year, 1, 1)) + 1
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ`.
    var rfc3339UTC: String {
        var s = ""
        s.reserveCapacity(24)
        s += Self.yearText(year)
        s += "-" + Self.padded(month, 2) + "-" + Self.padded(day, 2)
        s += "T" + Self.padded(hour, 2) + ":" + Self.padded(minute, 2) + ":" + Self.padded(second, 2)
        s += "." + Self.padded(millisecond, 3) + "Z"
        return s
    }

    /// The year with at least four digits (and a sign when negative).
    static func yearText(_ y: Int64) -> String {
        y < 0 ? "-" + paddedText(String(-y), 4) : paddedText(String(y), 4)
    }

    static func padded(_ n: Int, _ width: Int) -> String {
        paddedText(String(n), width)
    }

    static func paddedText(_ digits: String, _ width: Int) -> String {
        digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Parses an RFC 3339 `date-time` with a mandatory offset (`Z` or `±hh:mm`):
    /// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±hh:mm)`, `T` and `Z` in either case.
    ///
    /// - Returns: `nil` for anything else, including impossible dates and times.
    static func parseRFC3339(_ text: String) -> CivilTime? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in i..<(i + n) {
                guard ValueSemantics.isDigit(b[k]) else { return nil }
                v = v * 10 + Int(b[k] - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
            let day = digits(2)
        else { return nil }
        guard i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") else { return nil }
        i += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2), expect(UInt8(ascii: ":")),
            let second = digits(2)
        else { return nil }
        var millisecond = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < b.count, ValueSemantics.isDigit(b[i]) {
                if i - start < 3 { millisecond = millisecond * 10 + Int(b[i] - 0x30) }
                i += 1
            }
            guard i > start else { return nil }
            for _ in 0..<max(0, 3 - (i - start)) { millisecond *= 10 }
        }
        guard i < b.count else { return nil }
        var offset = 0
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let negative = b[i] == UInt8(ascii: "-")
            i += 1
            guard let oh = digits(2), expect(UInt8(ascii: ":")), let om = digits(2), oh <= 23, om <= 59 else { return nil }
            offset = (oh * 60 + om) * (negative ? -1 : 1)
        default:
            return nil
        }
        guard i == b.count else { return nil }
        guard (1...12).contains(month), day >= 1, Int64(day) <= CivilCalendar.daysInMonth(year: Int64(year), month: Int64(month)), hour <= 23, minute <= 59,
            second <= 60
        else { return nil }
        return CivilTime(
            year: Int64(year), month: month, day: day, hour: hour, minute: minute, second: second,
            millisecond: millisecond, offsetMinutes: offset)
    }
}

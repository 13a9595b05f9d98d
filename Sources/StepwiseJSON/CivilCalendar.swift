/// The proleptic Gregorian calendar as day counts since 1970-01-01, for every module that reads
/// or writes RFC 3339 timestamps (H. Hinnant's `days_from_civil` / `civil_from_days`).
package enum CivilCalendar {
    /// Days since 1970-01-01 of `year`-`month`-`day` (negative before it).
    ///
    /// - Parameters:
    ///   - month: 1…12.
    ///   - day: 1…31; not checked against the month.
    package static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` days after 1970-01-01.
    package static func date(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Whether `year` has a February 29.
    package static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// 28…31.
    package static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ` for `milliseconds` since the Unix epoch.
    package static func rfc3339(milliseconds: Int64) -> String {
        let (days, msOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = date(fromDays: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(msOfDay / 3_600_000, 2)):"
            + "\(pad(msOfDay / 60_000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))Z"
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for `milliseconds` since the Unix epoch (the fraction dropped).
    package static func rfc3339WholeSeconds(milliseconds: Int64) -> String {
        let (days, msOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = date(fromDays: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(msOfDay / 3_600_000, 2)):"
            + "\(pad(msOfDay / 60_000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2))Z"
    }

    /// Quotient rounded down and the remainder with the divisor's sign.
    private static func floorDivision(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let r = a % b
        return r < 0 ? (a / b - 1, r + b) : (a / b, r)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

@testable import StepwiseJSON
import Testing

/// The one calendar behind every RFC 3339 timestamp the package reads or writes.
@Suite struct CivilCalendarTests {
    @Test func knownDates() {
        #expect(CivilCalendar.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilCalendar.days(year: 1969, month: 12, day: 31) == -1)
        #expect(CivilCalendar.days(year: 2000, month: 2, day: 29) == 11_016)
        #expect(CivilCalendar.days(year: 1600, month: 3, day: 1) == -135_080)
        #expect(CivilCalendar.date(fromDays: 20_454) == (2026, 1, 1))
        #expect(CivilCalendar.daysInMonth(year: 1900, month: 2) == 28)
        #expect(CivilCalendar.daysInMonth(year: 2000, month: 2) == 29)
        #expect(CivilCalendar.daysInMonth(year: 2024, month: 4) == 30)
    }

    @Test func daysAndDatesRoundTripAcrossCenturies() {
        var previous: (year: Int64, month: Int64, day: Int64)?
        for days in stride(from: Int64(-800_000), through: 800_000, by: 1) where days % 97 == 0 || abs(days) < 800 {
            let date = CivilCalendar.date(fromDays: days)
            #expect(CivilCalendar.days(year: date.year, month: date.month, day: date.day) == days)
            #expect((1...12).contains(date.month) && date.day >= 1 && date.day <= CivilCalendar.daysInMonth(year: date.year, month: date.month))
            if let previous, abs(days) < 800, days > -799 {
                // Consecutive days: the next day of the month, or the first of the next month.
                let next = previous.day < CivilCalendar.daysInMonth(year: previous.year, month: previous.month)
                    ? (previous.year, previous.month, previous.day + 1)
                    : previous.month == 12 ? (previous.year + 1, 1, 1) : (previous.year, previous.month + 1, 1)
                #expect(date == next)
            }
            previous = abs(days) < 800 ? date : nil
        }
    }

    @Test func rfc3339Text() {
        #expect(CivilCalendar.rfc3339(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(CivilCalendar.rfc3339(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(CivilCalendar.rfc3339(milliseconds: 1_779_186_600_004) == "2026-05-19T10:30:00.004Z")
        #expect(CivilCalendar.rfc3339WholeSeconds(milliseconds: 1_779_186_600_999) == "2026-05-19T10:30:00Z")
        #expect(CivilCalendar.rfc3339WholeSeconds(milliseconds: -1) == "1969-12-31T23:59:59Z")
    }
}

/// Unix-millisecond timestamps rendered as RFC 3339 UTC (`YYYY-MM-DDTHH:MM:SS.sssZ`).
public enum Timestamp {
    /// The RFC 3339 text of `milliseconds` since the Unix epoch.
    public static func rfc3339(_ milliseconds: Int64) -> String {
        let ms = milliseconds.floorMod(1000)
        let totalSeconds = (milliseconds - ms) / 1000
        let secondsOfDay = totalSeconds.floorMod(86_400)
        let days = (totalSeconds - secondsOfDay) / 86_400
        let (y, m, d) = civil(fromDays: days)
        let h = secondsOfDay / 3600
        let mi = secondsOfDay % 3600 / 60
        let s = secondsOfDay % 60
        func pad(_ v: Int64, _ width: Int) -> String {
            let t = String(v)
            return String(repeating: "0", count: max(0, width - t.count)) + t
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(ms, 3))Z"
    }

    /// Year, month, day of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

extension Int64 {
    /// The remainder with the sign of the divisor.
    func floorMod(_ divisor: Int64) -> Int64 {
        let r = self % divisor
        return r < 0 ? r + divisor : r
    }
}

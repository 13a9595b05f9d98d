import StepwiseJSON

/// Unix-millisecond timestamps rendered as RFC 3339 UTC (`YYYY-MM-DDTHH:MM:SS.sssZ`).
public enum Timestamp {
    /// The RFC 3339 text of `milliseconds` since the Unix epoch.
    public static func rfc3339(_ milliseconds: Int64) -> String { CivilCalendar.rfc3339(milliseconds: milliseconds) }
}

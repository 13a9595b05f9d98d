import StepwiseJSON

extension FunctionLibrary {
    /// The default `format_date` format.
    static let defaultDateFormat = "%Y-%m-%d"

    /// `format_date(iso, fmt)`: an invalid conversion is an error even when `iso` is invalid;
    /// an `iso` that is not RFC 3339 with an offset gives null.
    static func formatDate(_ iso: JSONValue, _ format: JSONValue?, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        let text: String
        switch format {
        case nil: text = defaultDateFormat
        case .string(let s)?: text = s
        default: return .null
        }
        try budget.chargeBytes(text.utf8.count)
        let compiled = try DateFormat(text)
        guard case .string(let s) = iso, let time = CivilTime.parseRFC3339(s) else { return .null }
        return .string(compiled.format(time))
    }

    /// `day_of_week(iso)`: 0 = Monday … 6 = Sunday in the timestamp's own offset.
    static func dayOfWeek(_ iso: JSONValue) -> JSONValue {
        guard case .string(let s) = iso, let time = CivilTime.parseRFC3339(s) else { return .null }
        return .integer(Int64(time.isoWeekday - 1))
    }
}

/// The functions of the expression language (SEMANTICS §3.7) with their arity.
enum BuiltinFunction: String, Sendable, CaseIterable {
    case has, abs, len, json, now, uuid, random
    case formatDate = "format_date"
    case dayOfWeek = "day_of_week"
    case keys, values, contains
    case startsWith = "starts_with"
    case endsWith = "ends_with"
    case sum, avg, min, max, first, last, slice, sort, unique, count
    case changePct = "change_pct"
    case clamp

    /// The accepted argument counts.
    var arity: ClosedRange<Int> {
        switch self {
        case .has, .abs, .len, .json, .keys, .values, .sum, .avg, .min, .max, .first, .last, .unique, .dayOfWeek:
            1...1
        case .now, .uuid:
            0...0
        case .random:
            0...2
        case .formatDate, .sort:
            1...2
        case .contains, .startsWith, .endsWith, .count, .changePct:
            2...2
        case .slice:
            1...3
        case .clamp:
            3...3
        }
    }

    /// Whether the result changes between evaluations (warned about in conditions).
    var isNondeterministic: Bool {
        self == .now || self == .uuid || self == .random
    }

    /// "1 argument", "0 to 2 arguments", …
    var arityDescription: String {
        let r = arity
        if r.lowerBound == r.upperBound {
            return r.lowerBound == 1 ? "1 argument" : "\(r.lowerBound) arguments"
        }
        return "\(r.lowerBound) to \(r.upperBound) arguments"
    }
}

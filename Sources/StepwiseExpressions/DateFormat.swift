/// A `format_date` format compiled from its strftime text (SEMANTICS §3.7): the C-locale
/// conversions `%Y %C %y %m %b %B %h %d %e %j %a %A %u %w %H %I %M %S %p %z %F %T %D %R %%`,
/// `%:z` (±hh:mm) and the `-` flag (no padding).
struct DateFormat: Sendable {
    enum Piece: Sendable {
        case text(String)
        case conversion(Unicode.Scalar, unpadded: Bool)
        case colonOffset
    }

    let pieces: [Piece]

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]
    static let weekdayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let conversions: Set<Unicode.Scalar> = [
        "Y", "C", "y", "m", "b", "B", "h", "d", "e", "j", "a", "A", "u", "w", "H", "I", "M", "S", "p", "z", "F", "T",
        "D", "R", "%",
    ]

    /// Compiles `text`.
    ///
    /// - Throws: ``EvaluationFailure`` naming the first unsupported conversion (including a
    ///   lone `%` at the end), e.g. `format_date: unsupported conversion '%Q'`.
    init(_ text: String) throws(EvaluationFailure) {
        var pieces: [Piece] = []
        var literal = ""
        // By Unicode scalar, not by character: a combining mark after a conversion is text of
        // its own (`%d\u{301}`), and `%` followed by one is not a conversion.
        var chars = Array(text.unicodeScalars)[...]
        while let c = chars.popFirst() {
            guard c == "%" else {
                literal.unicodeScalars.append(c)
                continue
            }
            var spec = "%"
            var unpadded = false
            if chars.first == "-" {
                unpadded = true
                spec.append("-")
                chars.removeFirst()
            }
            guard let conversion = chars.popFirst() else {
                throw EvaluationFailure(message: "format_date: unsupported conversion '\(spec)' at the end of the format")
            }
            spec.unicodeScalars.append(conversion)
            if conversion == ":" {
                guard chars.first == "z" else {
                    throw EvaluationFailure(
                        message: "format_date: unsupported conversion '\(spec)\(chars.first.map { String(Character($0)) } ?? "")'")
                }
                chars.removeFirst()
                if !literal.isEmpty { pieces.append(.text(literal)); literal = "" }
                pieces.append(.colonOffset)
                continue
            }
            guard Self.conversions.contains(conversion) else {
                throw EvaluationFailure(message: "format_date: unsupported conversion '\(spec)'")
            }
            if !literal.isEmpty { pieces.append(.text(literal)); literal = "" }
            pieces.append(.conversion(conversion, unpadded: unpadded))
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        self.pieces = pieces
    }

    /// The formatted wall-clock time `t` (in its own offset).
    func format(_ t: CivilTime) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let s): out += s
            case .colonOffset: out += Self.offset(t.offsetMinutes, colon: true)
            case .conversion(let c, let unpadded): out += Self.convert(c, unpadded: unpadded, t)
            }
        }
        return out
    }

    private static func number(_ n: Int64, _ width: Int, _ unpadded: Bool, pad: Character = "0") -> String {
        let digits = String(n < 0 ? -n : n)
        let sign = n < 0 ? "-" : ""
        if unpadded || digits.count >= width { return sign + digits }
        return sign + String(repeating: pad, count: width - digits.count) + digits
    }

    private static func number(_ n: Int, _ width: Int, _ unpadded: Bool, pad: Character = "0") -> String {
        number(Int64(n), width, unpadded, pad: pad)
    }

    static func offset(_ minutes: Int, colon: Bool) -> String {
        let sign = minutes < 0 ? "-" : "+"
        let m = minutes < 0 ? -minutes : minutes
        return sign + CivilTime.padded(m / 60, 2) + (colon ? ":" : "") + CivilTime.padded(m % 60, 2)
    }

    private static func convert(_ c: Unicode.Scalar, unpadded u: Bool, _ t: CivilTime) -> String {
        switch c {
        case "Y": return number(t.year, 4, u)
        case "C": return number(floorDivide(t.year, 100), 2, u)
        case "y": return number(((t.year % 100) + 100) % 100, 2, u)
        case "m": return number(t.month, 2, u)
        case "b", "h": return String(monthNames[t.month - 1].prefix(3))
        case "B": return monthNames[t.month - 1]
        case "d": return number(t.day, 2, u)
        case "e": return number(t.day, 2, u, pad: " ")
        case "j": return number(t.dayOfYear, 3, u)
        case "a": return String(weekdayNames[t.isoWeekday - 1].prefix(3))
        case "A": return weekdayNames[t.isoWeekday - 1]
        case "u": return String(t.isoWeekday)
        case "w": return String(t.isoWeekday % 7)
        case "H": return number(t.hour, 2, u)
        case "I": return number(t.hour % 12 == 0 ? 12 : t.hour % 12, 2, u)
        case "M": return number(t.minute, 2, u)
        case "S": return number(t.second, 2, u)
        case "p": return t.hour < 12 ? "AM" : "PM"
        case "z": return offset(t.offsetMinutes, colon: false)
        case "F": return number(t.year, 4, false) + "-" + number(t.month, 2, false) + "-" + number(t.day, 2, false)
        case "T": return number(t.hour, 2, false) + ":" + number(t.minute, 2, false) + ":" + number(t.second, 2, false)
        case "D":
            return number(t.month, 2, false) + "/" + number(t.day, 2, false) + "/"
                + number(((t.year % 100) + 100) % 100, 2, false)
        case "R": return number(t.hour, 2, false) + ":" + number(t.minute, 2, false)
        default: return "%"
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}

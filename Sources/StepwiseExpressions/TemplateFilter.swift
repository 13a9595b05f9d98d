import StepwiseCrypto
import StepwiseJSON

/// One filter of a template expression (SEMANTICS §4.3), with its arguments checked at load.
enum TemplateFilter: Sendable {
    /// What `replace` puts in place of the search text.
    enum Replacement: Sendable {
        case text(String)
        case path(ValuePath)
    }

    case upper, lower, trim, abs
    case round(decimals: Int)
    case urlEncode, base64, base64Decode
    case replace(search: String, replacement: Replacement)
    case defaultValue(JSONValue)
    case truncate(length: Int, suffix: String)
    case join(separator: String)
    case split(separator: String)
    case sha256

    /// Filters written without parentheses.
    static let argumentFreeNames: Set<String> = ["upper", "lower", "trim", "abs", "url_encode", "base64", "base64_decode"]
    /// Every filter name.
    static let names: Set<String> = argumentFreeNames.union(["round", "replace", "default", "truncate", "join", "split", "hash"])

    /// Every filter result is capped at this many bytes.
    static let maximumResultBytes = 4 * 1024 * 1024

    /// The filter's name as written.
    var name: String {
        switch self {
        case .upper: "upper"
        case .lower: "lower"
        case .trim: "trim"
        case .abs: "abs"
        case .round: "round"
        case .urlEncode: "url_encode"
        case .base64: "base64"
        case .base64Decode: "base64_decode"
        case .replace: "replace"
        case .defaultValue: "default"
        case .truncate: "truncate"
        case .join: "join"
        case .split: "split"
        case .sha256: "hash"
        }
    }

    /// Builds a filter from its name and parsed arguments.
    ///
    /// - Throws: ``TemplateError`` for an unknown name or arguments of the wrong kind or count.
    init(name: String, arguments: [TemplateArgument]) throws(TemplateError) {
        func fail(_ message: String) -> TemplateError { TemplateError(message: message) }
        func noArguments(_ filter: TemplateFilter) throws(TemplateError) -> TemplateFilter {
            guard arguments.isEmpty else { throw fail("filter '\(name)' takes no arguments") }
            return filter
        }
        func quoted(_ a: TemplateArgument, _ what: String) throws(TemplateError) -> String {
            guard case .quoted(let s) = a else { throw fail("\(name): \(what) must be a quoted string, got \(a.text)") }
            return s
        }
        func nonNegativeInteger(_ a: TemplateArgument, _ what: String) throws(TemplateError) -> Int {
            // Any non-negative integer: a length or a number of decimals past the value's own
            // only leaves it whole (§4.4 asks for integers, no upper bound).
            // Digits past Int64 are an integer too, larger than any length or precision.
            if case .number(_, let written) = a, written.utf8.allSatisfy(ValueSemantics.isDigit) { return Int.max }
            guard case .integer(let i) = a, i >= 0 else {
                throw fail("\(name): \(what) must be a non-negative integer, got \(a.text)")
            }
            return Int(clamping: i)
        }
        switch name {
        case "upper": self = try noArguments(.upper)
        case "lower": self = try noArguments(.lower)
        case "trim": self = try noArguments(.trim)
        case "abs": self = try noArguments(.abs)
        case "url_encode": self = try noArguments(.urlEncode)
        case "base64": self = try noArguments(.base64)
        case "base64_decode": self = try noArguments(.base64Decode)
        case "round":
            guard arguments.count == 1 else { throw fail("round takes 1 argument (decimals), got \(arguments.count)") }
            self = .round(decimals: try nonNegativeInteger(arguments[0], "the number of decimals"))
        case "truncate":
            guard (1...2).contains(arguments.count) else {
                throw fail("truncate takes 1 or 2 arguments (length, 'suffix'), got \(arguments.count)")
            }
            let length = try nonNegativeInteger(arguments[0], "the length")
            let suffix = arguments.count == 2 ? try quoted(arguments[1], "the suffix") : ""
            self = .truncate(length: length, suffix: suffix)
        case "replace":
            guard arguments.count == 2 else {
                throw fail("replace takes 2 arguments ('search', replacement), got \(arguments.count)")
            }
            let search = try quoted(arguments[0], "the search text")
            guard !search.isEmpty else { throw fail("replace: the search text must not be empty") }
            switch arguments[1] {
            case .quoted(let s): self = .replace(search: search, replacement: .text(s))
            case .path(let p, _): self = .replace(search: search, replacement: .path(p))
            default: throw fail("replace: the replacement must be a quoted string or a path, got \(arguments[1].text)")
            }
        case "default":
            guard arguments.count == 1 else { throw fail("default takes 1 argument, got \(arguments.count)") }
            guard let literal = arguments[0].literalValue else {
                throw fail("default: the argument must be a literal (quoted string, number, true, false or null), got \(arguments[0].text)")
            }
            self = .defaultValue(literal)
        case "join":
            guard arguments.count == 1 else { throw fail("join takes 1 argument ('separator'), got \(arguments.count)") }
            self = .join(separator: try quoted(arguments[0], "the separator"))
        case "split":
            guard arguments.count == 1 else { throw fail("split takes 1 argument ('separator'), got \(arguments.count)") }
            self = .split(separator: try quoted(arguments[0], "the separator"))
        case "hash":
            guard arguments.count == 1 else { throw fail("hash takes 1 argument ('sha256'), got \(arguments.count)") }
            guard case .quoted("sha256") = arguments[0] else {
                throw fail("hash: unsupported algorithm \(arguments[0].text); only 'sha256' is supported")
            }
            self = .sha256
        default:
            throw fail("unknown filter '\(name)'")
        }
    }

    /// Applies the filter to `value`.
    ///
    /// - Throws: ``TemplateError`` when `base64_decode` gets invalid input or a result exceeds
    ///   4 MiB.
    func apply(_ value: JSONValue, _ scope: EvaluationScope) throws(TemplateError) -> JSONValue {
        let result: JSONValue
        switch self {
        case .upper:
            result = .string(value.stringValue?.uppercased() ?? "")
        case .lower:
            result = .string(value.stringValue?.lowercased() ?? "")
        case .trim:
            result = .string(value.stringValue.map(Self.trimmed) ?? "")
        case .abs:
            switch value {
            case .integer(let i): result = i == Int64.min ? .double(-Double(i)) : .integer(Swift.abs(i))
            case .double(let d): result = .double(Swift.abs(d))
            default: result = .integer(0)
            }
        case .round(let decimals):
            result = Self.round(value, decimals)
        case .urlEncode:
            result = .string(value.stringValue.map(Self.percentEncoded) ?? "")
        case .base64:
            result = .string(value.stringValue.map { Base64.encode(Array($0.utf8)) } ?? "")
        case .base64Decode:
            guard case .string(let s) = value else {
                result = .string("")
                break
            }
            guard let bytes = Base64.decode(s) else {
                throw TemplateError(message: "base64_decode: invalid base64 input")
            }
            result = .string(String(decoding: bytes, as: UTF8.self))
        case .replace(let search, let replacement):
            let replacementText: String
            switch replacement {
            case .text(let t): replacementText = t
            case .path(let p):
                let v = p.resolve(in: scope)
                replacementText = v.isNull ? "" : ValueSemantics.text(v)
            }
            result = .string(try Self.replacing(ValueSemantics.text(value), search, replacementText))
        case .defaultValue(let literal):
            switch value {
            case .null, .string(""): result = literal
            default: result = value
            }
        case .truncate(let length, let suffix):
            guard case .string(let s) = value else {
                result = .string("")
                break
            }
            let scalars = s.unicodeScalars
            if scalars.count > length {
                var out = String.UnicodeScalarView()
                out.append(contentsOf: scalars.prefix(length))
                result = .string(String(out) + suffix)
            } else {
                result = value
            }
        case .join(let separator):
            guard case .array(let elements) = value else {
                result = .string("")
                break
            }
            var out = ""
            for (i, e) in elements.enumerated() {
                if i > 0 { out += separator }
                out += ValueSemantics.text(e)
                if out.utf8.count > Self.maximumResultBytes { throw tooLarge() }
            }
            result = .string(out)
        case .split(let separator):
            guard case .string(let s) = value else {
                result = .array([""])
                break
            }
            result = .array(Self.splitting(s, separator).map(JSONValue.string))
        case .sha256:
            result = .string(SHA256.hexDigest(of: Array(ValueSemantics.text(value).utf8)))
        }
        if Self.size(of: result) > Self.maximumResultBytes { throw tooLarge() }
        return result
    }

    private func tooLarge() -> TemplateError {
        TemplateError(message: "\(name): result exceeds 4 MiB")
    }

    /// Approximate serialized size of a filter result: string bytes, plus quotes and commas for
    /// arrays of strings.
    private static func size(of value: JSONValue) -> Int {
        switch value {
        case .string(let s): return s.utf8.count
        case .array(let a):
            var n = 2
            for e in a { n += size(of: e) + 3 }
            return n
        default: return 0
        }
    }

    private static func trimmed(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }

    private static func round(_ value: JSONValue, _ decimals: Int) -> JSONValue {
        switch value {
        case .integer:
            return value
        case .double(let d):
            return .double(roundedDecimal(d, decimals))
        default:
            return .integer(0)
        }
    }

    /// `d` rounded half away from zero to `decimals` places, deciding on the shortest decimal
    /// text of `d` (so `2.345` rounds to `2.35`, as an author reads it, not to the binary
    /// neighbour's `2.34`).
    static func roundedDecimal(_ d: Double, _ decimals: Int) -> Double {
        let text = String(d.magnitude)
        guard !text.contains("e"), !text.contains("E"), let dot = text.firstIndex(of: ".") else {
            return fallbackRounded(d, decimals)
        }
        let integerDigits = Array(text[..<dot].utf8)
        let fractionDigits = Array(text[text.index(after: dot)...].utf8)
        guard fractionDigits.count > decimals else { return d }
        var digits = integerDigits + fractionDigits.prefix(decimals)
        if fractionDigits[decimals] >= UInt8(ascii: "5") {
            // Increment the kept digits as a decimal number.
            var i = digits.count - 1
            while i >= 0 {
                if digits[i] == UInt8(ascii: "9") {
                    digits[i] = UInt8(ascii: "0")
                    i -= 1
                } else {
                    digits[i] += 1
                    break
                }
            }
            if i < 0 { digits.insert(UInt8(ascii: "1"), at: 0) }
        }
        let integerCount = digits.count - decimals
        var rebuilt = String(decoding: digits[..<integerCount], as: UTF8.self)
        if decimals > 0 { rebuilt += "." + String(decoding: digits[integerCount...], as: UTF8.self) }
        guard let magnitude = Double(rebuilt) else { return fallbackRounded(d, decimals) }
        return d < 0 ? -magnitude : magnitude
    }

    private static func fallbackRounded(_ d: Double, _ decimals: Int) -> Double {
        var scale = 1.0
        for _ in 0..<min(decimals, 400) { scale *= 10 }
        let scaled = d * scale
        guard scale.isFinite, scaled.isFinite else { return d }
        let r = scaled.rounded(.toNearestOrAwayFromZero) / scale
        return r.isFinite ? r : d
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func percentEncoded(_ s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                out.append(b)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(b >> 4)])
                out.append(hexDigits[Int(b & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Every occurrence of `search` (non-empty) replaced, comparing UTF-8 bytes.
    private static func replacing(_ s: String, _ search: String, _ replacement: String) throws(TemplateError) -> String {
        let h = Array(s.utf8)
        let searcher = ByteSearch(Array(search.utf8))
        let n = searcher.needle
        let r = Array(replacement.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(h.count)
        var i = 0
        while let j = searcher.firstIndex(in: h, from: i) {
            out.append(contentsOf: h[i..<j])
            out.append(contentsOf: r)
            if out.count > maximumResultBytes { throw TemplateError(message: "replace: result exceeds 4 MiB") }
            i = j + n.count
        }
        out.append(contentsOf: h[i...])
        return String(decoding: out, as: UTF8.self)
    }

    /// `s` split on `separator` (UTF-8 bytes); an empty separator splits into Unicode scalars.
    private static func splitting(_ s: String, _ separator: String) -> [String] {
        if separator.isEmpty { return s.unicodeScalars.map { String($0) } }
        let h = Array(s.utf8)
        let searcher = ByteSearch(Array(separator.utf8))
        let n = searcher.needle
        var parts: [String] = []
        var i = 0
        while let j = searcher.firstIndex(in: h, from: i) {
            parts.append(String(decoding: h[i..<j], as: UTF8.self))
            i = j + n.count
        }
        parts.append(String(decoding: h[i...], as: UTF8.self))
        return parts
    }
}

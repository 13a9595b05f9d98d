/// An RFC 6901 JSON pointer such as `/blocks/3/routes/0/condition`.
///
/// Built by appending tokens; `~` and `/` inside a token are escaped as `~0` and `~1`.
public struct JSONPointer: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The unescaped reference tokens, outermost first.
    public private(set) var tokens: [String]

    /// The pointer to the whole document (`""`).
    public static let root = JSONPointer(tokens: [])

    /// Creates a pointer from unescaped tokens.
    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses the text form.
    ///
    /// - Returns: `nil` when the text is neither empty nor starts with `/`, or has a bad `~` escape.
    public init?(parsing text: String) {
        if text.isEmpty {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else { return nil }
        var result: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var iterator = raw.makeIterator()
            while let c = iterator.next() {
                if c == "~" {
                    switch iterator.next() {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: return nil
                    }
                } else {
                    token.append(c)
                }
            }
            result.append(token)
        }
        tokens = result
    }

    /// This pointer extended by a member name.
    public func appending(_ key: String) -> JSONPointer {
        var copy = self
        copy.tokens.append(key)
        return copy
    }

    /// This pointer extended by an array index.
    public func appending(_ index: Int) -> JSONPointer { appending(String(index)) }

    /// The escaped text form.
    public var description: String {
        var s = ""
        for t in tokens {
            s.append("/")
            for c in t {
                switch c {
                case "~": s.append("~0")
                case "/": s.append("~1")
                default: s.append(c)
                }
            }
        }
        return s
    }

    /// Orders by document position: token by token, numeric tokens numerically.
    public static func < (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        for (a, b) in zip(lhs.tokens, rhs.tokens) where a != b {
            if let x = Int(a), let y = Int(b) { return x < y }
            return a < b
        }
        return lhs.tokens.count < rhs.tokens.count
    }

    /// The value this pointer designates inside `document`, or `nil`.
    public func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for t in tokens {
            switch current {
            case .object(let o):
                guard let v = o[t] else { return nil }
                current = v
            case .array(let a):
                guard let i = Int(t), a.indices.contains(i) else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }
}

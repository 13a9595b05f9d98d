/// An RFC 6901 JSON pointer such as `/blocks/3/routes/0/condition`.
///
/// Built by appending tokens; `~` and `/` inside a token are escaped as `~0` and `~1`. Tokens
/// compare by their UTF-8 bytes, like JSON keys.
///
/// ```swift
/// let pointer = JSONPointer.root.appending("blocks").appending(3).appending("a/b")
/// pointer.description                        // "/blocks/3/a~1b"
/// JSONPointer(parsing: "/blocks/3/a~1b")     // the same pointer
/// ```
///
/// See [RFC 6901](https://www.rfc-editor.org/rfc/rfc6901).
public struct JSONPointer: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The unescaped reference tokens, outermost first.
    public private(set) var tokens: [String]

    /// The pointer to the whole document (`""`).
    public static let root = JSONPointer(tokens: [])

    /// Creates a pointer from unescaped tokens.
    ///
    /// - Parameter tokens: the reference tokens, outermost first, without `~` escapes.
    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses the text form.
    ///
    /// ```swift
    /// JSONPointer(parsing: "/m~0n/a~1b")?.tokens   // ["m~n", "a/b"]
    /// JSONPointer(parsing: "blocks")              // nil: must start with "/"
    /// ```
    ///
    /// - Parameter text: `""` or `/`-prefixed tokens with `~0` for `~` and `~1` for `/`.
    /// - Returns: `nil` when the text is neither empty nor starts with `/`, or has a `~` not
    ///   followed by `0` or `1`.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        if bytes.isEmpty {
            tokens = []
            return
        }
        guard bytes[0] == Self.slash else { return nil }
        var result: [String] = []
        var token: [UInt8] = []
        var i = 1
        while i < bytes.count {
            let b = bytes[i]
            if b == Self.slash {
                result.append(String(decoding: token, as: UTF8.self))
                token.removeAll(keepingCapacity: true)
            } else if b == Self.tilde {
                i += 1
                guard i < bytes.count else { return nil }
                switch bytes[i] {
                case Self.zero: token.append(Self.tilde)
                case Self.one: token.append(Self.slash)
                default: return nil
                }
            } else {
                token.append(b)
            }
            i += 1
        }
        result.append(String(decoding: token, as: UTF8.self))
        tokens = result
    }

    /// This pointer extended by a member name.
    ///
    /// - Parameter key: the unescaped member name.
    public func appending(_ key: String) -> JSONPointer {
        var copy = self
        copy.tokens.append(key)
        return copy
    }

    /// This pointer extended by an array index.
    ///
    /// - Parameter index: the 0-based element index.
    public func appending(_ index: Int) -> JSONPointer { appending(String(index)) }

    /// The escaped text form: `""` for the root, else `/`-prefixed tokens.
    public var description: String {
        var out: [UInt8] = []
        for t in tokens {
            out.append(Self.slash)
            for b in t.utf8 {
                switch b {
                case Self.tilde: out.append(Self.tilde); out.append(Self.zero)
                case Self.slash: out.append(Self.tilde); out.append(Self.one)
                default: out.append(b)
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Same tokens, compared by UTF-8 bytes.
    public static func == (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        guard lhs.tokens.count == rhs.tokens.count else { return false }
        for (a, b) in zip(lhs.tokens, rhs.tokens) where !JSONKey.sameBytes(a, b) {
            return false
        }
        return true
    }

    /// Hashes the tokens' UTF-8 bytes, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tokens.count)
        for t in tokens { JSONKey.hashBytes(of: t, into: &hasher) }
    }

    /// Orders pointers token by token, a pointer before its extensions.
    ///
    /// Tokens that are array indices (`0` or digits without a leading zero, RFC 6901 §4) come
    /// before other tokens and compare numerically (`/blocks/2` < `/blocks/10`); other tokens
    /// compare by UTF-8 bytes. This is a total order consistent with `==`.
    public static func < (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        for (a, b) in zip(lhs.tokens, rhs.tokens) where !JSONKey.sameBytes(a, b) {
            return tokenPrecedes(a, b)
        }
        return lhs.tokens.count < rhs.tokens.count
    }

    /// The value this pointer designates inside `document`, or `nil`.
    ///
    /// Array elements are designated only by canonical indices: `01`, `+1`, `-1` and `-` (the
    /// position past the end) designate nothing.
    ///
    /// ```swift
    /// let document: JSONValue = ["blocks": [["id": "a"]]]
    /// JSONPointer(parsing: "/blocks/0/id")?.resolve(in: document)   // "a"
    /// ```
    ///
    /// - Parameter document: the value the pointer is relative to.
    /// - Returns: the designated value, or `nil` when a token names no member or element.
    /// - Complexity: O(d) lookups for a pointer of d tokens.
    public func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for t in tokens {
            switch current {
            case .object(let o):
                guard let v = o[t] else { return nil }
                current = v
            case .array(let a):
                guard Self.isArrayIndex(t), let i = Int(t), a.indices.contains(i) else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }

    private static let slash = UInt8(ascii: "/")
    private static let tilde = UInt8(ascii: "~")
    private static let zero = UInt8(ascii: "0")
    private static let one = UInt8(ascii: "1")

    /// Whether `token` is `0` or a digit string without a leading zero.
    private static func isArrayIndex(_ token: String) -> Bool {
        let u = token.utf8
        guard let first = u.first else { return false }
        if first == zero { return u.count == 1 }
        return u.allSatisfy { $0 >= zero && $0 <= UInt8(ascii: "9") }
    }

    private static func tokenPrecedes(_ a: String, _ b: String) -> Bool {
        switch (isArrayIndex(a), isArrayIndex(b)) {
        case (true, true):
            // Canonical digit strings: shorter is smaller, then digit by digit.
            if a.utf8.count != b.utf8.count { return a.utf8.count < b.utf8.count }
            return a.utf8.lexicographicallyPrecedes(b.utf8)
        case (true, false):
            return true
        case (false, true):
            return false
        case (false, false):
            return a.utf8.lexicographicallyPrecedes(b.utf8)
        }
    }
}

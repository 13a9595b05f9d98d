/// Why bytes are not acceptable JSON, and where.
///
/// `code` is `invalid_json` (syntax, encoding, duplicate keys, numbers out of range) or
/// `too_deep_json` (nesting beyond the limit); `offset` is the 0-based byte offset of the
/// problem.
///
/// ```swift
/// do {
///     _ = try JSONParser.parse(#"{"a": 1, "a": 2}"#)
/// } catch {
///     error.code     // .invalidJSON
///     error.offset   // 9
///     error.description  // "duplicate key 'a' at byte 9"
/// }
/// ```
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of a JSON parse failure, as it appears in data (`snake_case`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's text.
        public let rawValue: String
        /// Malformed syntax, bad UTF-8, duplicate key, non-finite number, trailing data.
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// Nesting deeper than the parser's limit.
        public static let tooDeep = Code(rawValue: "too_deep_json")
        /// The code's text, as ``rawValue``.
        public var description: String { rawValue }
    }

    /// The category.
    public let code: Code
    /// Byte offset of the problem in the input.
    public let offset: Int
    /// What is wrong, for a person.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the category.
    ///   - offset: 0-based byte offset of the problem.
    ///   - message: what is wrong, for a person.
    public init(code: Code, offset: Int, message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    /// `"<message> at byte <offset>"`.
    public var description: String { "\(message) at byte \(offset)" }
}

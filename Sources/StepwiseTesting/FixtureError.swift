/// A fixture or schema file that tests cannot use: unreadable, not JSON, or malformed.
public struct FixtureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's text.
        public let rawValue: String
        /// Wraps a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        /// The file does not exist or cannot be read.
        public static let unreadable = Code(rawValue: "unreadable")
        /// The file is not valid JSON.
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        /// The JSON does not have the expected shape (a sidecar without `problems`, ...).
        public static let malformed = Code(rawValue: "malformed")
    }

    /// What went wrong.
    public let code: Code
    /// Details, naming the value at fault.
    public let message: String
    /// The file concerned.
    public let context: String

    /// Creates an error.
    public init(code: Code, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
    }

    /// `<context>: <code>: <message>`.
    public var description: String { "\(context): \(code): \(message)" }
}

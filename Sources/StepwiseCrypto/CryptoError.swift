/// A key or signature that cannot be used, with a message that never contains key material.
///
/// ```swift
/// do { _ = try Ed25519PublicKey(parsing: "not a key") }
/// catch let error as CryptoError where error.code == .invalidKey { print(error.message) }
/// ```
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's text.
        public let rawValue: String
        /// Wraps a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        /// A public or private key has the wrong length or encoding.
        public static let invalidKey = Code(rawValue: "invalidKey")
    }

    /// The code.
    public let code: Code
    /// What is wrong, naming lengths and formats but never key bytes.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `<code>: <message>`.
    public var description: String { "\(code): \(message)" }
}

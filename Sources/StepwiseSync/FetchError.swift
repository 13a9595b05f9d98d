/// A fetch that produced no usable response.
///
/// ```swift
/// catch let error as FetchError where error.code == .tooLarge { … }
/// ```
public struct FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's text.
        public let rawValue: String
        /// Wraps a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        /// `Content-Length` or the streamed body exceeded ``HTTPRequest/maxResponseBytes``.
        public static let tooLarge = Code(rawValue: "too_large")
        /// The request took longer than ``HTTPRequest/timeoutMilliseconds`` (retried).
        public static let timeout = Code(rawValue: "timeout")
        /// Connection, TLS or protocol failure.
        public static let transport = Code(rawValue: "transport")
        /// The fetcher refuses this URL (scheme, host, or outside its root).
        public static let refused = Code(rawValue: "refused")
    }

    /// The code.
    public let code: Code
    /// What went wrong; never a query string or a credential.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `<code>: <message>`.
    public var description: String { "\(code): \(message)" }
}

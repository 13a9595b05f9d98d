public import Hummingbird
import StepwiseJSON

/// A failure of the reference sync server, with the HTTP status it answers with.
///
/// Every error response of the server has the body `{"error": "<message>"}` (SYNC.md §5) and
/// one of the statuses 400, 401, 404, 409, 413 or 500. Handlers and the store throw this type;
/// the error middleware turns it, and any other error, into that body.
///
/// ```swift
/// throw SyncServerError(.notFound, "approval 'a1' not found")
/// ```
///
/// Messages never contain API keys, push tokens or resolved credentials.
public struct SyncServerError: Error, Sendable, CustomStringConvertible, HTTPResponseError {
    /// What went wrong, as a code that maps to one HTTP status.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Storage: Hashable, Sendable {
            case badRequest, unauthorized, notFound, conflict, contentTooLarge, storage, internalError
        }
        private let storage: Storage
        private init(_ storage: Storage) { self.storage = storage }

        /// The request is malformed or breaks a rule (400).
        public static let badRequest = Code(.badRequest)
        /// No API key, or an unknown one (401).
        public static let unauthorized = Code(.unauthorized)
        /// The object does not exist for the caller's tenant (404).
        public static let notFound = Code(.notFound)
        /// The request clashes with stored state: another tenant's device, a device limit (409).
        public static let conflict = Code(.conflict)
        /// The request body exceeds the configured cap (413).
        public static let contentTooLarge = Code(.contentTooLarge)
        /// The store failed (500).
        public static let storage = Code(.storage)
        /// Any other server fault (500).
        public static let internalError = Code(.internalError)

        /// The HTTP status this code answers with.
        public var status: HTTPResponse.Status {
            switch storage {
            case .badRequest: .badRequest
            case .unauthorized: .unauthorized
            case .notFound: .notFound
            case .conflict: .conflict
            case .contentTooLarge: .contentTooLarge
            case .storage, .internalError: .internalServerError
            }
        }

        /// A snake_case name of the code.
        public var description: String {
            switch storage {
            case .badRequest: "bad_request"
            case .unauthorized: "unauthorized"
            case .notFound: "not_found"
            case .conflict: "conflict"
            case .contentTooLarge: "content_too_large"
            case .storage: "storage"
            case .internalError: "internal_error"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// The message sent to the client as `error`.
    public let message: String
    /// The error that caused this one, for logs (never sent to the client).
    public let underlyingError: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the kind of failure, which picks the HTTP status.
    ///   - message: the client-facing message; no secrets.
    ///   - underlyingError: the cause, kept for logs.
    public init(_ code: Code, _ message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    /// A storage failure wrapping `error`; the client sees a generic message.
    ///
    /// - Parameter error: what the store threw.
    /// - Returns: `error` itself when it already is a ``SyncServerError``, else a
    ///   ``Code/storage`` error.
    public static func storage(_ error: any Error) -> SyncServerError {
        if let error = error as? SyncServerError { return error }
        return SyncServerError(.storage, "storage failure", underlyingError: error)
    }

    /// The HTTP status of ``code``.
    public var status: HTTPResponse.Status { code.status }

    /// `code: message`, plus the underlying error when there is one.
    public var description: String {
        var text = "\(code): \(message)"
        if let underlyingError { text += " (\(underlyingError))" }
        return text
    }

    /// The `{"error": message}` JSON response.
    ///
    /// - Parameters:
    ///   - request: the request being answered.
    ///   - context: its context.
    /// - Returns: the response with ``status``.
    public func response(from request: Request, context: some RequestContext) -> Response {
        JSONResponse.make(status: status, body: ["error": .string(message)])
    }
}

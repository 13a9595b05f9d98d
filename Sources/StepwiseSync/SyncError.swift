public import StepwiseExecution
public import StepwiseJSON

/// The error manifest sync throws: a code, a message for a person, and structured context.
///
/// Codes are the engine's (SEMANTICS §6): `syncNotConfigured`, `manifestRejected` (with
/// ``reason``), `network` (with `context["http_status"]` when a response came), `unauthorized`,
/// `invalidInput`, `storage`, `shutdown`. Messages never contain key material, tokens, or URLs
/// with their query strings.
///
/// ```swift
/// do { _ = try await synchronizer.sync(manifestURL: url, tokenProvider: nil) }
/// catch let error as SyncError where error.reason == .manifestSignatureInvalid { … }
/// ```
public struct SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code (shared with ``StepwiseError/Code``).
    public let code: StepwiseError.Code
    /// What went wrong, naming the values involved.
    public let message: String
    /// Structured details: `reason` (a ``ManifestRejectionReason``), `http_status`, names.
    public let context: JSONObject

    /// Creates an error.
    public init(_ code: StepwiseError.Code, _ message: String, context: JSONObject = JSONObject()) {
        self.code = code
        self.message = message
        self.context = context
    }

    /// A `manifestRejected` error with its §3.6 reason.
    public static func manifestRejected(_ reason: ManifestRejectionReason, _ message: String) -> SyncError {
        SyncError(.manifestRejected, message, context: ["reason": .string(reason.rawValue)])
    }

    /// The §3.6 rejection reason of a `manifestRejected` error, else `nil`.
    public var reason: ManifestRejectionReason? {
        guard code == .manifestRejected, let text = context["reason"]?.stringValue else { return nil }
        return ManifestRejectionReason(rawValue: text)
    }

    /// The HTTP status of a `network` or `unauthorized` failure, when a response came.
    public var httpStatus: Int? { context["http_status"]?.exactIntegerValue.map { Int($0) } }

    /// The same failure as the engine's error type.
    public var stepwiseError: StepwiseError { StepwiseError(code, message, context: context) }

    /// `<code>(<reason>): <message>` or `<code>: <message>`.
    public var description: String {
        if let reason { return "\(code)(\(reason)): \(message)" }
        return "\(code): \(message)"
    }
}

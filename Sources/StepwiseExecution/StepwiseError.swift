public import StepwiseJSON

/// The error every engine call throws: a code, a message for a person, and context.
///
/// Codes follow SEMANTICS §6. Messages never contain key material or secrets.
///
/// ```swift
/// do { try await engine.completeStep(instanceId: id, stepId: "terms", output: ["value": "maybe"]) }
/// catch let error as StepwiseError where error.code == .invalidInput { print(error.message) }
/// ```
public struct StepwiseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's text (`camelCase`).
        public let rawValue: String
        /// Wraps a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// An argument is malformed or not acceptable.
        public static let invalidInput = Code(rawValue: "invalidInput")
        /// The instance, sequence, step or dead letter does not exist.
        public static let notFound = Code(rawValue: "notFound")
        /// The call does not fit the current state (terminal instance, step not waiting, …).
        public static let invalidState = Code(rawValue: "invalidState")
        /// The call contradicts stored data (different bytes for a stored version, an id in use).
        public static let conflict = Code(rawValue: "conflict")
        /// A configured limit refuses the call.
        public static let resourceLimit = Code(rawValue: "resourceLimit")
        /// A sequence failed validation; `problems` lists every problem.
        public static let sequenceInvalid = Code(rawValue: "sequenceInvalid")
        /// A sequence uses handlers that are not registered; `context["handlers"]` lists them.
        public static let unregisteredHandler = Code(rawValue: "unregisteredHandler")
        /// Sync was called without a root public key.
        public static let syncNotConfigured = Code(rawValue: "syncNotConfigured")
        /// A signed manifest was rejected.
        public static let manifestRejected = Code(rawValue: "manifestRejected")
        /// The network failed.
        public static let network = Code(rawValue: "network")
        /// The server refused the credentials.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// The database failed (I/O, full disk, read-only file, corruption); the message names the file.
        public static let storage = Code(rawValue: "storage")
        /// An operation ran out of time (a network request, or a database lock held by another
        /// connection for longer than `operationTimeoutMs`).
        public static let timeout = Code(rawValue: "timeout")
        /// The engine was shut down.
        public static let shutdown = Code(rawValue: "shutdown")
    }

    /// The code.
    public let code: Code
    /// What went wrong, naming the values involved.
    public let message: String
    /// Structured details (ids, names, limits).
    public let context: JSONObject

    /// Creates an error.
    public init(_ code: Code, _ message: String, context: JSONObject = JSONObject()) {
        self.code = code
        self.message = message
        self.context = context
    }

    /// `<code>: <message>`.
    public var description: String { "\(code): \(message)" }
}

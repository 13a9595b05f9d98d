public import StepwiseJSON

/// How a server command ended on the device (SYNC.md §2.6).
public struct SyncCommandOutcome: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable {
        /// Executed (or an idempotent no-op); marker, ack and result committed with the change.
        case done
        /// Refused permanently; marker, ack and result (with the error) committed.
        case rejected
        /// Transient problem: nothing written; the server re-delivers.
        case retry
        /// Not a command (no string `id` and `type`); logged and skipped.
        case skipped
    }
    /// The command id, when it has one.
    public let id: String?
    /// The outcome.
    public let kind: Kind
    /// The instance started by `start_workflow` / `update_sequence`.
    public let instanceId: InstanceID?
    /// The error, for rejections and retries.
    public let error: String?
    /// Whether the command had run before (a redelivery): nothing ran now, its ack was queued again.
    public var wasAlreadyExecuted = false
}

/// A command decoded from a sync response, in either the `payload` or the flat form.
public struct SyncCommand: Sendable, Hashable {
    /// The command id.
    public let id: String
    /// The command type (`complete_step`, `cancel_instance`, …).
    public let type: String
    /// The payload, with `output`/`input` given as JSON text parsed.
    public let payload: JSONObject

    /// Decodes a command object (SYNC.md §2.4).
    ///
    /// - Returns: `nil` when `id` or `type` is not a string (such a command is skipped).
    public init?(json: JSONValue) {
        guard case .object(let object) = json, case .string(let id)? = object["id"],
            case .string(let type)? = object["type"]
        else { return nil }
        var payload: JSONObject
        if case .object(let p)? = object["payload"] {
            payload = p
        } else {
            payload = object
            payload.removeValue(forKey: "id")
            payload.removeValue(forKey: "type")
        }
        for key in ["output", "input"] {
            if case .string(let text)? = payload[key], let parsed = try? JSONParser.parse(text) { payload[key] = parsed }
        }
        self.id = id
        self.type = type
        self.payload = payload
    }
}

public import StepwiseJSON

/// A device's report of how a command ended (the `command_results` extension, SYNC.md §2.5).
public struct CommandResult: Sendable, Hashable {
    /// The command id.
    public var id: String
    /// `done` or `rejected`.
    public var outcome: String
    /// The instance a `start_workflow` or `update_sequence` started, if any.
    public var instanceID: String?
    /// Why it was rejected, if it was.
    public var error: String?

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - id: the command id.
    ///   - outcome: `done` or `rejected`.
    ///   - instanceID: the started instance.
    ///   - error: the rejection message.
    public init(id: String, outcome: String, instanceID: String? = nil, error: String? = nil) {
        self.id = id
        self.outcome = outcome
        self.instanceID = instanceID
        self.error = error
    }

    /// `{"outcome", "instance_id", "error"}`.
    public var json: JSONValue {
        [
            "outcome": .string(outcome), "instance_id": instanceID.map(JSONValue.string) ?? .null,
            "error": error.map(JSONValue.string) ?? .null,
        ]
    }
}

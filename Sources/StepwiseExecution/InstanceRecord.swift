public import StepwiseJSON

/// The persisted row of an instance: identity, state, context and bookkeeping.
public struct InstanceRecord: Sendable, Hashable {
    /// The instance id.
    public let id: InstanceID
    /// The pinned sequence version.
    public let sequence: SequenceKey
    /// The instance state.
    public var state: InstanceState
    /// `context.data`.
    public var data: JSONObject
    /// `context.config`.
    public var config: JSONObject
    /// Latest output per block id.
    public var outputs: JSONObject
    /// The instance error (message prefixed by its origin).
    public var error: InstanceError?
    /// Whether cancellation was requested (protected work may still be running).
    public var cancelRequested: Bool
    /// Whether a `pause` signal holds the instance.
    public var isPaused: Bool
    /// The parent instance of a sub_sequence child.
    public let parentInstance: InstanceID?
    /// The parent's sub_sequence node.
    public let parentNode: NodeID?
    /// The dedup key, released when the instance ends.
    public var dedupKey: String?
    /// Creation time, Unix ms.
    public let createdAt: Int64
    /// Last change, Unix ms.
    public var updatedAt: Int64
    /// When the instance became terminal, Unix ms.
    public var finishedAt: Int64?
    /// Start of the lifetime clock (creation or last redrive), Unix ms.
    public var lifetimeStartedAt: Int64
    /// Handler invocations so far (attempts and escalations).
    public var stepsExecuted: Int
    /// Sub-sequence depth (0 for a root instance).
    public let depth: Int
    /// Seed of the instance's deterministic random draws.
    public let randomSeed: UInt64
    /// The hook list (`on_failure` / `on_cancel`) state.
    public var hooks: HookState
    /// Next node id to assign.
    public var nextNodeID: Int
    /// Steps to treat as already completed with these outputs (`update_sequence`
    /// `skip_executed`), by step id.
    public var precompleted: JSONObject?
    /// What a store found wrong when it read this row (a value that does not decode: a damaged
    /// file), or `nil`. The engine fails such an instance at open instead of running it on
    /// substitutes.
    package var storedDamage: String?

    /// Creates a record.
    public init(
        id: InstanceID, sequence: SequenceKey, state: InstanceState, data: JSONObject, config: JSONObject,
        outputs: JSONObject = JSONObject(), error: InstanceError? = nil, cancelRequested: Bool = false,
        isPaused: Bool = false, parentInstance: InstanceID? = nil, parentNode: NodeID? = nil, dedupKey: String? = nil,
        createdAt: Int64, updatedAt: Int64, finishedAt: Int64? = nil, lifetimeStartedAt: Int64, stepsExecuted: Int = 0,
        depth: Int = 0, randomSeed: UInt64, hooks: HookState = .none, nextNodeID: Int = 0,
        precompleted: JSONObject? = nil
    ) {
        self.id = id
        self.sequence = sequence
        self.state = state
        self.data = data
        self.config = config
        self.outputs = outputs
        self.error = error
        self.cancelRequested = cancelRequested
        self.isPaused = isPaused
        self.parentInstance = parentInstance
        self.parentNode = parentNode
        self.dedupKey = dedupKey
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
        self.lifetimeStartedAt = lifetimeStartedAt
        self.stepsExecuted = stepsExecuted
        self.depth = depth
        self.randomSeed = randomSeed
        self.hooks = hooks
        self.nextNodeID = nextNodeID
        self.precompleted = precompleted
    }
}

/// An instance's error as shown to hosts.
public struct InstanceError: Sendable, Hashable {
    /// The message, prefixed by the block where the failure originated.
    public var message: String
    /// The originating block.
    public var blockID: String?
    /// The error code, when known.
    public var code: String?

    /// Creates an error.
    public init(message: String, blockID: String? = nil, code: String? = nil) {
        self.message = message
        self.blockID = blockID
        self.code = code
    }

    /// `{message, block_id?, code?}`.
    public var jsonValue: JSONValue {
        var o: JSONObject = ["message": .string(message)]
        if let blockID { o["block_id"] = .string(blockID) }
        if let code { o["code"] = .string(code) }
        return .object(o)
    }

    /// Reads the JSON form back.
    public init?(json: JSONValue) {
        guard case .string(let m)? = json["message"] else { return nil }
        message = m
        blockID = json["block_id"]?.stringValue
        code = json["code"]?.stringValue
    }
}

/// Whether an instance's `on_failure` / `on_cancel` hook list runs.
public enum HookState: String, Sendable, Hashable {
    /// No hook ran (or the instance is not terminal).
    case none
    /// The hook list is running.
    case running
    /// The hook list finished (or there was none).
    case finished
}

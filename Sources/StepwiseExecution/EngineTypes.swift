public import StepwiseJSON

/// Options for ``StepwiseEngine/start(_:input:dedupKey:options:)``.
public struct StartOptions: Sendable, Hashable {
    /// The id to use instead of a random one.
    public var instanceId: InstanceID?
    /// `context.config` for the instance.
    public var config: JSONObject
    /// An exact version instead of the latest.
    public var version: Int?

    /// Creates options.
    public init(instanceId: InstanceID? = nil, config: JSONObject = JSONObject(), version: Int? = nil) {
        self.instanceId = instanceId
        self.config = config
        self.version = version
    }
}

/// The result of loading a sequence.
public struct LoadedSequence: Sendable, Hashable {
    /// The sequence name.
    public let name: String
    /// The version.
    public let version: Int
    /// Validation warnings, as `<pointer>: <code>: <message>`.
    public let warnings: [String]
    /// Whether this call stored it (false: identical bytes were already stored).
    public let isNew: Bool
}

/// What one tick did (SEMANTICS §6.4).
public struct TickResult: Sendable, Hashable {
    /// Instances whose state changed.
    public var instancesAdvanced: Int
    /// Handler calls that finished in the tick.
    public var stepsExecuted: Int
    /// Whether work is runnable now or in flight.
    public var hasPendingWork: Bool
    /// The next timer deadline, Unix ms.
    public var nextDueAt: Int64?
}

/// What a background window did (SEMANTICS §6.4).
public struct BackgroundRunResult: Sendable, Hashable {
    /// Ticks run.
    public var ticksExecuted: Int
    /// Instances whose state changed.
    public var instancesAdvanced: Int
    /// Handler calls that finished.
    public var stepsExecuted: Int
    /// Whether work is runnable now or in flight.
    public var hasPendingWork: Bool
    /// Whether a budget ended the window with runnable work left.
    public var budgetExhausted: Bool
    /// The next timer deadline or, with a sync channel, when its next round trip is due,
    /// whichever comes first, Unix ms: schedule the next background task then.
    public var nextDueAt: Int64?
}

/// A deterministic random number generator (SplitMix64) for ids and seeds.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    /// A generator from `seed`.
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

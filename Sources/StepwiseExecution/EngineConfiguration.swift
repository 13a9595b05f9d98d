import StepwiseCrypto

/// Every engine setting with the defaults of SEMANTICS §6.1.
public struct EngineConfiguration: Sendable, Hashable {
    /// How durable each commit is.
    public enum Durability: String, Sendable, Hashable, CaseIterable {
        /// Survives process kills (WAL, `synchronous=NORMAL`).
        case normal
        /// Also survives power loss (`synchronous=FULL`, an fsync per commit).
        case full
    }

    /// Heartbeat of the run loop, in milliseconds.
    public var tickIntervalMs: UInt64 = 100
    /// Handler calls in flight, all instances together.
    public var maxConcurrentSteps: UInt32 = 4
    /// Handler invocations per instance (0 = unlimited).
    public var maxStepsPerInstance: UInt32 = 1000
    /// Scheduled + running + waiting root instances allowed at once.
    public var maxConcurrentInstances: UInt32 = 10
    /// Longest a tick runs, in milliseconds.
    public var maxTickDurationMs: UInt64 = 5000
    /// Lifetime of an instance before it fails (non-terminal) or is deleted (terminal), in seconds.
    public var maxInstanceLifetimeSecs: UInt64 = 86_400
    /// Stored sequence versions (0 = unlimited).
    public var maxStoredSequences: UInt32 = 50
    /// Largest accepted sequence document.
    public var maxSequenceSizeBytes: UInt64 = 1_048_576
    /// Default per-attempt handler timeout, in milliseconds (0 = none).
    public var handlerTimeoutMs: UInt64 = 30_000
    /// Per HTTP request; longest wait of an API call for storage.
    public var operationTimeoutMs: UInt64 = 10_000
    /// Whether lifecycle telemetry is recorded.
    public var telemetryEnabled: Bool = true
    /// Label sent with telemetry and sync requests.
    public var environment: String = ""
    /// Ed25519 root key (base64 of 32 bytes, 64 hex digits, or base64 SPKI DER).
    public var rootPublicKey: String = ""
    /// Compared with a manifest's `min_sdk_version`.
    public var sdkVersion: String = StepwiseVersion.current
    /// Accounted memory budget in bytes (0 = off).
    public var memoryBudgetBytes: UInt64 = 0
    /// Default URL for loading sequences from a URL.
    public var sequencesUrl: String = ""
    /// The sync endpoint (https).
    public var syncUrl: String = ""
    /// This device's id for sync.
    public var deviceId: String = ""
    /// The sync API key.
    public var syncApiKey: String = ""
    /// Where telemetry is sent.
    public var telemetryUrl: String = ""
    /// Further accepted root keys (rotation).
    public var additionalRootPublicKeys: [String] = []
    /// Allow `http://localhost` and `127.0.0.1` (tests, a local server).
    public var allowInsecureLocalhost: Bool = false
    /// Commit durability.
    public var durability: Durability = .normal
    /// Where handler calls run: on Swift's shared cooperative pool (the default) or on the
    /// engine's own thread (opt-in: faster hand-offs for handlers that only await).
    public var handlerExecution: HandlerExecution = .sharedPool

    /// Where handler calls run: the executor preference of their tasks, so a handler's own code
    /// runs there before and after each `await` (code on another actor runs on that actor).
    public enum HandlerExecution: String, Sendable, Hashable {
        /// On the engine's thread: the fastest for handlers that await I/O; a handler that
        /// computes or blocks holds up every instance while it does, so it is not the default.
        case engineThread = "engine_thread"
        /// On Swift's shared cooperative pool, beside the engine.
        case sharedPool = "shared_pool"
    }

    /// The defaults.
    public init() {}

    /// Checks every field.
    ///
    /// - Throws: ``StepwiseError`` `invalidInput` naming the first bad field. Nothing else.
    public func validate() throws(StepwiseError) {
        if tickIntervalMs == 0 { throw StepwiseError(.invalidInput, "tickIntervalMs must be greater than 0") }
        if maxConcurrentSteps == 0 { throw StepwiseError(.invalidInput, "maxConcurrentSteps must be greater than 0") }
        if maxConcurrentInstances == 0 {
            throw StepwiseError(.invalidInput, "maxConcurrentInstances must be greater than 0")
        }
        if maxTickDurationMs == 0 { throw StepwiseError(.invalidInput, "maxTickDurationMs must be greater than 0") }
        if maxInstanceLifetimeSecs == 0 {
            throw StepwiseError(.invalidInput, "maxInstanceLifetimeSecs must be greater than 0")
        }
        if maxSequenceSizeBytes == 0 || maxSequenceSizeBytes > 64 * 1_048_576 {
            throw StepwiseError(.invalidInput, "maxSequenceSizeBytes must be between 1 and 67108864")
        }
        if operationTimeoutMs == 0 { throw StepwiseError(.invalidInput, "operationTimeoutMs must be greater than 0") }
        if !rootPublicKey.isEmpty {
            do {
                _ = try Ed25519PublicKey(parsing: rootPublicKey)
            } catch {
                throw StepwiseError(.invalidInput, "rootPublicKey is malformed: \(error.message)")
            }
        }
        for (i, key) in additionalRootPublicKeys.enumerated() {
            do {
                _ = try Ed25519PublicKey(parsing: key)
            } catch {
                throw StepwiseError(.invalidInput, "additionalRootPublicKeys[\(i)] is malformed: \(error.message)")
            }
        }
        // Schemes and hosts are case-insensitive (RFC 3986), as URL loading treats them.
        let lowered = syncUrl.lowercased()
        if !syncUrl.isEmpty && !lowered.hasPrefix("https://") {
            let local = lowered.hasPrefix("http://localhost") || lowered.hasPrefix("http://127.0.0.1")
            if !(allowInsecureLocalhost && local) {
                // The scheme and host only: a query may carry a token.
                let shown = syncUrl.split(separator: "?", maxSplits: 1).first.map(String.init) ?? syncUrl
                throw StepwiseError(.invalidInput, "syncUrl must use https (got \(shown))")
            }
        }
    }
}

/// The package version, sent as `sdkVersion`.
public enum StepwiseVersion {
    /// The current version.
    public static let current = "0.1.0"
}

import StepwiseCrypto
public import StepwiseJSON
public import StepwiseSequences

/// The durable workflow engine: loads sequences, starts instances and runs them on a persisted
/// execution tree.
///
/// Every transition commits to the ``ExecutionStore`` before its effects (handler calls,
/// events) happen; opening a store resumes every unfinished instance. The engine dispatches
/// nothing until ``resume()``, ``tickOnce()`` or ``runUntilIdle(maxTicks:timeBudgetMs:)``.
///
/// ```swift
/// let engine = try StepwiseEngine(store: store, configuration: .init())
/// await engine.registerHandler("greet") { ctx in ["hello": ctx.params["name"] ?? "you"] }
/// _ = try await engine.loadSequence(json: bytes)
/// let id = try await engine.start("welcome", input: ["name": "Ada"])
/// await engine.resume()
/// ```
public actor StepwiseEngine {
    struct InFlightKey: Hashable {
        let instance: InstanceID
        let node: NodeID
    }

    /// A handler call in flight: its task, and the launch it belongs to. A timed-out attempt's
    /// call may return after its retry was launched under the same key; only the call's own
    /// result may free the slot.
    struct InFlightCall {
        let launch: UInt64
        let task: Task<Void, Never>
    }

    enum QueueEntry {
        case begin(InstanceID, NodeID)
        case resume(InstanceID, NodeID)
    }

    /// A handler call's outcome. It names the attempt without keeping the call's params and
    /// data: holding the data snapshot would make recording the output copy the instance's data.
    struct Completion {
        let instance: InstanceID
        let node: NodeID
        let attempt: Int
        let isEscalation: Bool
        /// The ``InFlightCall/launch`` of the call that produced it.
        let launch: UInt64
        let result: Result<JSONValue, AttemptFailure>
    }

    /// The engine's own thread (see ``EngineExecutor``).
    let executor = EngineExecutor()

    /// The engine runs on its own thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.serial.asUnownedSerialExecutor() }

    let store: any ExecutionStore
    let clock: any EngineClock
    /// The configuration the engine was opened with.
    public nonisolated let configuration: EngineConfiguration
    var random: SeededRandom

    /// The catalog: versions that can be started, plus retired ones running instances still pin.
    var sequences: [SequenceKey: StoredSequence] = [:]
    /// Names whose every version a manifest retired (their `notFound` says so).
    var removedNames: Set<String> = []
    var programs: [SequenceKey: SequenceProgram] = [:]
    var live: [InstanceID: InstanceRuntime] = [:]
    var handlers: [String: any StepHandler] = BuiltinHandlers.all {
        didSet {
            registeredHandlerNames = Set(handlers.keys)
            engineHandledBuiltins = BuiltinHandlers.engineHandled.filter { name in
                handlers[name].map { $0 is SleepHandler || $0 is SetHandler } ?? false
            }
        }
    }
    package var registeredHandlerNames = Set(BuiltinHandlers.names)
    var engineHandledBuiltins = BuiltinHandlers.engineHandled
    var queue: [QueueEntry] = []
    var inFlight: [InFlightKey: InFlightCall] = [:]
    /// The last ``InFlightCall/launch`` number given.
    var lastLaunch: UInt64 = 0
    var inbox: [Completion] = []
    var timers = TimerHeap()
    /// Timers that came due while their instance was paused by signal, put back on the heap at
    /// `resume` (SEMANTICS §2.12: "timers keep deadlines and fire on resume if due").
    var heldTimers: [InstanceID: [TimerHeap.Entry]] = [:]
    var conditions = DeviceConditions()
    var isShutdown = false
    var isCrashed = false
    /// Shut down or dropped as by a crash: the store is closed to this engine.
    var isClosed: Bool { isShutdown || isCrashed }
    var isRunning = false
    /// Set by ``serveReadsOnly()``.
    var readsOnly = false
    /// Set by `pause()` until `resume()`: a handler result arriving meanwhile is recorded at
    /// once (SEMANTICS §6.4 "later results are still recorded"), nothing being dispatched.
    var isPausedByHost = false

    // Pass state: what the current pass has changed and must commit.
    var touched: Set<InstanceID> = []
    var pendingJournal: [JournalEntry] = []
    var pendingBatch = StoreBatch()
    var launches: [HandlerCall] = []
    /// Calls of delegated attempts whose secrets arrived, waiting for a free handler slot. They
    /// live only in memory: after a restart the attempts are delegated again.
    var resolvedCalls: [HandlerCall] = []
    var completedInPass = 0
    var advancedInPass: Set<InstanceID> = []
    /// Live instances whose reload after a failed commit could not read the store (retried).
    var instancesToReload: Set<InstanceID> = []
    /// Unfinished instances whose stored state cannot run (a damaged file, or a sequence version
    /// that cannot be loaded), with the reason: failed by the next pass (see
    /// ``failDamagedInstances()``), so they are neither run into a trap nor silently ignored.
    var damagedInstances: [(InstanceRecord, String)] = []
    /// Instances whose `graceful` follow-up waits for its sequence (`nil` until read from the
    /// store; see ``retryWaitingFollowUps()``).
    var waitingFollowUps: Set<InstanceID>?

    /// Called after every successful commit with the batch (crash-point tests kill the process here).
    package var commitObserver: (@Sendable (StoreBatch) -> Void)?

    /// A pass that records this step's output dispatches nothing, so a test can restart the
    /// engine exactly at that commit boundary (conformance `after_step` actions).
    package var holdDispatchAfterStep: String?

    /// Sets ``holdDispatchAfterStep``.
    package func setHoldDispatchAfterStep(_ step: String?) { holdDispatchAfterStep = step }

    /// Installs the commit observer.
    package func setCommitObserver(_ observer: (@Sendable (StoreBatch) -> Void)?) { commitObserver = observer }

    var listener: (any EngineListener)?
    var deliveryTask: Task<Void, Never>?
    var deliveryContinuation: CheckedContinuation<Void, Never>?
    var deliveryWakePending = false
    var deliveryGeneration = 0
    var lastHousekeeping: Int64?
    /// When command markers were last pruned (in memory: at most daily per engine).
    var lastMarkerPrune: Int64?
    var syncChannelDriver: (any SyncChannelDriver)?
    /// The manifest synchronizer `sync(manifestURL:)` serialises its calls on (owned by the sync module).
    package var manifestSynchronizer: (any Sendable)?
    /// Marker, ack and result rows of the sync command being executed, committed with its change.
    var commandWrites: [OutboxWrite] = []
    /// Whether commits queue outbox rows (SYNC.md §2.2): with a channel configured, or on a
    /// database whose outbox was seeded by an engine that had one.
    let writesOutbox: Bool
    /// The outcome of the latest channel round trip this engine made (time, HTTP status, error;
    /// SYNC.md §2.10), whichever path ran it: the run loop, `runUntilIdle`, `syncChannel()` or
    /// `shutdown()`. `nil` before the first.
    public internal(set) var lastChannelSync: ChannelSyncResult?
    /// Whether `seedOutboxIfNeeded` ran (once per engine).
    var outboxSeedChecked = false
    var heartbeatMs: Int64 = 100
    var touchedLastPass: Set<InstanceID> = []

    var loopTask: Task<Void, Never>?
    var wakeContinuation: CheckedContinuation<Void, Never>?
    var wakePending = false
    var timerTask: Task<Void, Never>?
    var armedDeadline: Int64?
    /// The telemetry buffer (SYNC.md §4), kept up to date by commits; `nil` until counted, and
    /// after changes only a count from the store tells.
    var telemetryBuffer: TelemetryBuffer?
    /// The channel round trip the run loop started, while it is out (at most one).
    var channelTask: Task<Void, Never>?
    /// Whether any channel round trip is out, and the round trips waiting for it to end.
    var isChannelRoundTripOut = false
    var channelRoundTripWaiters: [CheckedContinuation<Void, Never>] = []

    /// Opens an engine on `store`: loads stored sequences and resumes every unfinished instance
    /// (in-flight attempts are re-run with the same attempt number, params and key; timers are
    /// re-armed; waits keep waiting). Nothing is dispatched until the engine runs.
    ///
    /// - Parameters:
    ///   - store: the durable store (the engine becomes its only user).
    ///   - configuration: settings; validated.
    ///   - clock: the time source (a ``VirtualClock`` in tests).
    ///   - randomSeed: seed for instance ids and random draws; `nil` draws one from the system.
    /// - Throws: ``StepwiseError`` `invalidInput` for a bad configuration, `storage` when the
    ///   store cannot be read.
    public init(
        store: sending any ExecutionStore, configuration: EngineConfiguration = EngineConfiguration(),
        clock: any EngineClock = SystemClock(), randomSeed: UInt64? = nil, syncChannel: (any SyncChannelDriver)? = nil
    ) throws(StepwiseError) {
        try configuration.validate()
        syncChannelDriver = syncChannel
        // A database that has synced keeps its outbox filled even under an engine without a
        // channel (`stepwise run` / `resume` between two `stepwise sync`s): nothing is missed.
        let seeded = try store.metadata(Self.outboxSeededKey) != nil
        writesOutbox = !configuration.syncUrl.isEmpty || seeded
        self.store = store
        self.configuration = configuration
        self.clock = clock
        var systemRandom = SystemRandomNumberGenerator()
        random = SeededRandom(seed: randomSeed ?? systemRandom.next())
        let storedVersions = try store.storedSequences()
        var compiled: [SequenceKey: SequenceProgram] = [:]
        var restored: [InstanceID: InstanceRuntime] = [:]
        var recoveredQueue: [QueueEntry] = []
        var recoveredTimers = TimerHeap()
        var damaged: [(InstanceRecord, String)] = []
        for (record, nodes) in try store.loadLiveInstances() {
            if let damage = record.storedDamage {
                damaged.append((record, "the stored row of instance \(record.id) is damaged: \(damage)"))
                continue
            }
            let program: SequenceProgram
            do {
                program = try Self.compile(record.sequence, store: store, cache: &compiled)
            } catch {
                damaged.append((record, "instance \(record.id) cannot run: \(error.message)"))
                continue
            }
            do {
                let runtime = try InstanceRuntime(record: record, program: program, nodes: nodes)
                restored[record.id] = runtime
                Self.recover(runtime, queue: &recoveredQueue, timers: &recoveredTimers)
            } catch {
                damaged.append((record, error.message))
            }
        }
        damagedInstances = damaged
        // Retired versions no running instance pins are kept only for finished instances' history.
        let pinned = Set(restored.values.filter { !$0.record.state.isTerminal }.map(\.record.sequence))
        var catalog: [SequenceKey: StoredSequence] = [:]
        for stored in storedVersions where !stored.isRetired || pinned.contains(stored.key) { catalog[stored.key] = stored }
        sequences = catalog
        removedNames = Set(storedVersions.filter(\.isRetired).map(\.key.name))
            .subtracting(catalog.values.filter { !$0.isRetired }.map(\.key.name))
        programs = compiled
        live = restored
        queue = recoveredQueue
        timers = recoveredTimers
    }

    /// Rebuilds the queue and timers of a restored instance.
    private static func recover(_ runtime: InstanceRuntime, queue: inout [QueueEntry], timers: inout TimerHeap) {
        // No handler is in flight in a new process: until its interrupted calls are dispatched
        // again, a `running` instance is `scheduled` (SEMANTICS §2.1), and so it reads.
        if runtime.record.state == .running { runtime.updateRecord { $0.state = .scheduled } }
        for node in runtime.allNodes where !node.state.isTerminal {
            switch node.phase {
            case .inFlight:
                queue.append(.resume(runtime.id, node.id))
            case .escalating:
                queue.append(node.progress.idempotencyKey != nil ? .resume(runtime.id, node.id) : .begin(runtime.id, node.id))
            case .queued:
                queue.append(.begin(runtime.id, node.id))
            default:
                if let due = node.dueAt { timers.push(.init(due: due, instance: runtime.id, node: node.id)) }
            }
        }
    }

    // MARK: Sequences

    /// The compiled program of a stored version (compiled once, then cached).
    func program(for key: SequenceKey) throws(StepwiseError) -> SequenceProgram {
        try Self.compile(key, store: store, cache: &programs)
    }

    private static func compile(
        _ key: SequenceKey, store: any ExecutionStore, cache: inout [SequenceKey: SequenceProgram]
    ) throws(StepwiseError) -> SequenceProgram {
        if let cached = cache[key] { return cached }
        guard let bytes = try store.sequenceBytes(key) else {
            throw StepwiseError(.notFound, "sequence \(key) is not stored")
        }
        let result = SequenceLoader.load(bytes, limits: SequenceLimits(maxDocumentBytes: Int.max))
        guard let compiled = result.sequence else {
            throw StepwiseError(.storage, "stored sequence \(key) no longer validates: \(result.problems.first?.description ?? "")")
        }
        let program = SequenceProgram(compiled)
        cache[key] = program
        return program
    }

    /// The highest non-deprecated, non-retired version of `name`, or the exact version.
    func resolveSequence(_ name: String, version: Int?) -> SequenceKey? {
        if let version {
            let key = SequenceKey(name: name, version: version)
            return sequences[key].map { $0.isRetired ? nil : key } ?? nil
        }
        return sequences.values
            .filter { $0.key.hasName(name) && !$0.isDeprecated && !$0.isRetired }
            .map(\.key)
            .max()
    }

    /// Loads a sequence document: size check, validation, handler check, then stores it.
    ///
    /// Re-loading identical bytes for a stored (name, version) is a no-op.
    ///
    /// - Returns: name, version and warnings.
    /// - Throws: ``StepwiseError`` `sequenceInvalid` (every problem in the message and
    ///   `context["problems"]`), `unregisteredHandler` (`context["handlers"]`), `conflict` (other
    ///   bytes stored for this version), `storage`, `shutdown`.
    public func loadSequence(json bytes: [UInt8]) throws(StepwiseError) -> LoadedSequence {
        try checkOpen()
        let limits = SequenceLimits(maxDocumentBytes: Int(clamping: configuration.maxSequenceSizeBytes))
        let result = SequenceLoader.load(bytes, limits: limits)
        guard let compiled = result.sequence else {
            let invalid = SequenceInvalidError(problems: result.problems)
            throw StepwiseError(
                .sequenceInvalid, invalid.description,
                context: ["problems": .array(result.problems.map(\.jsonValue))])
        }
        try checkHandlersRegistered(compiled)
        let key = SequenceKey(name: compiled.name, version: compiled.version)
        let digest = SHA256.hexDigest(of: bytes)
        let warnings = result.warnings.map(\.description)
        if let existing = sequences[key], existing.sha256 == digest, !existing.isRetired {
            return LoadedSequence(name: key.name, version: key.version, warnings: warnings, isNew: false)
        }
        _ = try installVersion(bytes: bytes, compiled: compiled, sha256: digest, origin: "local")
        return LoadedSequence(name: key.name, version: key.version, warnings: warnings, isNew: true)
    }

    /// Validates a sequence document (SEMANTICS §6.5, §1.6) against this engine's limits
    /// (`maxSequenceSizeBytes`), without storing it and without checking its handlers.
    ///
    /// - Returns: every problem, in document order; empty when the document is valid (its
    ///   warnings are not problems: load it to see them).
    /// - Throws: ``StepwiseError`` `shutdown` only.
    public func validate(json bytes: [UInt8]) throws(StepwiseError) -> [Problem] {
        try checkOpen()
        let limits = SequenceLimits(maxDocumentBytes: Int(clamping: configuration.maxSequenceSizeBytes))
        return SequenceLoader.load(bytes, limits: limits).problems
    }

    /// Versions to delete so that `newKeys` (versions not in the catalog yet) fit under
    /// `maxStoredSequences`: unreferenced versions that are retired or superseded (by a stored
    /// version or one of `newKeys`), oldest first. An empty `newKeys` makes room for one.
    ///
    /// - Throws: ``StepwiseError`` `resourceLimit` when not enough can be evicted.
    func evictions(making added: [StoredSequence]) throws(StepwiseError) -> [SequenceKey] {
        let limit = Int(configuration.maxStoredSequences)
        let needed = sequences.count + max(1, added.count) - limit
        guard limit > 0, needed > 0 else { return [] }
        // Superseded: older than the version `start` would choose, which is never a deprecated
        // or retired one (§1.2): below a deprecated v2, v1 is still the latest.
        var latest: [String: Int] = [:]
        for stored in Array(sequences.values) + added where !stored.isDeprecated && !stored.isRetired {
            latest[stored.key.name] = max(latest[stored.key.name] ?? Int.min, stored.key.version)
        }
        let candidates = sequences.values
            .filter { stored in stored.isRetired || latest[stored.key.name].map { stored.key.version < $0 } ?? false }
            .sorted { ($0.installedAt, $0.key) < ($1.installedAt, $1.key) }
            .filter { !isPinnedByLiveInstance($0.key) }
            .map(\.key)
        guard candidates.count >= needed else {
            throw StepwiseError(
                .resourceLimit, "maxStoredSequences (\(limit)) reached and no stored version can be evicted",
                context: ["limit": .integer(Int64(limit))])
        }
        return Array(candidates.prefix(needed))
    }

    /// Every stored sequence version.
    public func loadedSequences() -> [StoredSequence] {
        sequences.values.sorted { $0.key < $1.key }
    }

    // MARK: Handlers

    /// Registers (or replaces) a handler; steps waiting for it become runnable.
    public func registerHandler(_ name: String, _ handler: some StepHandler) {
        handlers[name] = handler
        guard !isClosed else { return }
        for runtime in live.values {
            if runtime.activeNodes.contains(where: { $0.phase == .awaitingHandler || $0.isAwaitingEscalationHandler }) {
                transitionIgnoringErrors(runtime.id) { $0.recheckBlockedSteps() }
            }
        }
        try? commitPass()
        wake()
    }

    /// Removes every handler, built-ins included (the conformance runner registers only a case's
    /// listed handlers).
    package func unregisterAllHandlers() { handlers = [:] }

    /// Registers a closure handler.
    public func registerHandler(
        _ name: String, _ body: @escaping @Sendable (StepContext) async throws -> JSONValue
    ) {
        registerHandler(name, ClosureStepHandler(body))
    }

    /// Registers a seed-style string handler (`execute(stepName:input:) -> String`).
    public func registerHandler(
        _ name: String, stringHandler body: @escaping @Sendable (_ stepName: String, _ input: String) async throws -> String
    ) {
        registerHandler(name, StringStepHandler(body))
    }

    // MARK: Instances

    /// Starts an instance of the latest eligible version of `sequenceName`.
    ///
    /// With a `dedupKey` held by a live instance, returns that instance's id instead.
    ///
    /// - Returns: the instance id.
    /// - Throws: ``StepwiseError`` `notFound` (no such sequence), `invalidInput` (input not an
    ///   object, or over the 4 MiB limit of `context.data`), `resourceLimit`, `unregisteredHandler`, `conflict` (the supplied id exists),
    ///   `storage`, `shutdown`.
    public func start(
        _ sequenceName: String, input: JSONValue = .object(JSONObject()), dedupKey: String? = nil,
        options: StartOptions = StartOptions()
    ) throws(StepwiseError) -> InstanceID {
        try start(sequenceName, input: input, dedupKey: dedupKey, options: options, precompleted: nil)
    }

    func start(
        _ sequenceName: String, input: JSONValue, dedupKey: String? = nil, options: StartOptions,
        precompleted: JSONObject?
    ) throws(StepwiseError) -> InstanceID {
        try checkOpen()
        let key = dedupKey.flatMap { $0.isEmpty ? nil : $0 }
        if let key, let holder = try liveHolder(ofDedupKey: key) { return holder }
        let data: JSONObject
        switch input {
        case .object(let o): data = o
        case .string(let text):
            if text.isEmpty {
                data = JSONObject()
            } else if case .object(let o)? = try? JSONParser.parse(text) {
                data = o
            } else {
                throw StepwiseError(.invalidInput, "input must be a JSON object")
            }
        case .null: data = JSONObject()
        default: throw StepwiseError(.invalidInput, "input must be a JSON object, got \(input.typeName)")
        }
        // The input becomes context.data: refused here rather than failing the first write.
        if JSONWriter.byteCount(.object(data), limit: PayloadLimits.maxDataBytes) == nil {
            let size = JSONWriter.byteCount(.object(data)) ?? 0
            throw StepwiseError(
                .invalidInput, "input is \(size) bytes, more than the limit of \(PayloadLimits.maxDataBytes) for context.data",
                context: ["limit": .integer(Int64(PayloadLimits.maxDataBytes))])
        }
        guard let sequenceKey = resolveSequence(sequenceName, version: options.version) else {
            throw sequenceNotFound(sequenceName)
        }
        let program = try program(for: sequenceKey)
        let missing = program.sequence.handlerNames.filter { handlers[$0] == nil }
        if !missing.isEmpty {
            throw StepwiseError(
                .unregisteredHandler, "sequence '\(sequenceName)' uses unregistered handlers: \(missing.joined(separator: ", "))",
                context: ["handlers": .array(missing.map(JSONValue.string))])
        }
        let active = live.values.filter {
            $0.record.parentInstance == nil && !$0.record.state.isTerminal && $0.record.state != .paused
        }.count
        if active >= Int(configuration.maxConcurrentInstances) {
            throw StepwiseError(
                .resourceLimit, "maxConcurrentInstances (\(configuration.maxConcurrentInstances)) reached",
                context: ["limit": .integer(Int64(configuration.maxConcurrentInstances))])
        }
        if configuration.memoryBudgetBytes > 0 {
            let needed = accountedMemoryBytes() + (JSONWriter.byteCount(.object(data)) ?? 0)
            if UInt64(needed) > configuration.memoryBudgetBytes {
                throw StepwiseError(
                    .resourceLimit,
                    "memoryBudgetBytes (\(configuration.memoryBudgetBytes)) would be exceeded: \(needed) bytes accounted",
                    context: ["limit": .integer(Int64(clamping: configuration.memoryBudgetBytes))])
            }
        }
        if options.instanceId == .engine {
            throw StepwiseError(.invalidInput, "instance id \(InstanceID.engine) is reserved for the engine's own journal entries")
        }
        // A generated id is free by construction; a supplied one may be taken.
        let id: InstanceID
        if let supplied = options.instanceId {
            let taken = try live[supplied] != nil ? true : store.containsInstance(supplied)
            if taken {
                throw StepwiseError(
                    .conflict, "instance \(supplied) already exists", context: ["instance_id": .string(supplied.rawValue)])
            }
            id = supplied
        } else {
            id = freshInstanceID()
        }
        let now = clock.now()
        let record = InstanceRecord(
            id: id, sequence: sequenceKey, state: .scheduled, data: data, config: options.config, dedupKey: key,
            createdAt: now, updatedAt: now, lifetimeStartedAt: now, randomSeed: random.next(), precompleted: precompleted)
        let runtime = InstanceRuntime(record: record, program: program)
        live[id] = runtime
        do {
            try transition(id) { $0.start() }
            try commitPass()
        } catch {
            live[id] = nil
            throw error
        }
        wake()
        return id
    }

    /// A new instance id from the seeded generator that no live or stored instance has: an
    /// engine reopened with the same seed (tests, the conformance runner) draws the same
    /// sequence again, and a reused id would overwrite the instance that has it.
    func freshInstanceID() -> InstanceID {
        while true {
            let id = InstanceID.random(using: &random)
            if id != .engine && live[id] == nil && (try? store.containsInstance(id)) != true { return id }
        }
    }

    /// A new dead-letter id no stored dead letter has (see ``freshInstanceID()``).
    func freshDeadLetterID() -> String {
        while true {
            let id = InstanceID.random(using: &random).rawValue
            if pendingBatch.deadLetters.allSatisfy({ $0.id != id }) && (try? store.deadLetter(id)) == nil { return id }
        }
    }

    func liveHolder(ofDedupKey key: String) throws(StepwiseError) -> InstanceID? {
        if let holder = live.values.first(where: { $0.record.dedupKey?.utf8.elementsEqual(key.utf8) == true && !$0.record.state.isTerminal }) {
            return holder.id
        }
        return try store.instanceHolding(dedupKey: key)
    }

    /// Completes an open `wait_for_input` (SEMANTICS §2.9).
    ///
    /// - Parameters:
    ///   - output: a JSON object; its `value` member (or the whole object) is the answer.
    ///   - waitId: which wait, when several of the step are open (oldest otherwise).
    /// - Throws: ``StepwiseError`` `notFound`, `invalidState` (no open wait), `invalidInput`
    ///   (not an object, too large, not one of the choices); nothing changes then. Also
    ///   `storage`, `shutdown`. An answer whose write would take `context.data` past 4 MiB
    ///   does not throw: it is taken and fails its step (catchable, SEMANTICS §1.7).
    public func completeStep(
        instanceId: InstanceID, stepId: String, output: JSONValue, waitId: String? = nil
    ) throws(StepwiseError) {
        try checkOpen()
        let runtime: InstanceRuntime
        do {
            if let finished = live[instanceId], finished.record.state.isTerminal, finished.record.hooks == .running {
                // An on_failure / on_cancel list runs after the instance finished (§2.11); its
                // steps may wait for input like any other.
                runtime = finished
            } else {
                runtime = try liveRuntime(instanceId)
            }
        } catch where error.code == .invalidState {
            // A finished instance: the error names the step and its last state, as for a
            // running instance whose step is not waiting.
            throw finishedStepError(stepId, of: instanceId) ?? error
        }
        try transition(runtime.id) { (machine: inout InstanceMachine) throws(StepwiseError) in
            try machine.completeStep(stepID: stepId, payload: output, waitID: waitId)
        }
        try commitPass()
        wake()
    }

    /// Cancels an instance (SEMANTICS §2.10).
    ///
    /// - Throws: ``StepwiseError`` `notFound`, `invalidState` (already terminal), `storage`, `shutdown`.
    public func cancelInstance(_ id: InstanceID) throws(StepwiseError) {
        try checkOpen()
        let runtime = try liveRuntime(id)
        try transition(runtime.id) { $0.requestCancellation() }
        try commitPass()
        wake()
    }

    /// The signal types ``sendSignal(instanceId:type:payload:)`` takes besides `human_input:<step>`.
    package static let signalTypes: Set<String> = ["pause", "resume", "cancel", "update_context"]

    /// Sends a signal (SEMANTICS §2.12): `pause`, `resume`, `cancel`, `update_context`,
    /// `human_input:<stepId>`.
    ///
    /// - Throws: ``StepwiseError`` `notFound`, `invalidState` (terminal), `invalidInput` (unknown
    ///   type or bad payload), `storage`, `shutdown`.
    public func sendSignal(instanceId: InstanceID, type: String, payload: JSONValue = .null) throws(StepwiseError) {
        try checkOpen()
        if type.hasPrefix("human_input:") {
            // Signals need a non-terminal instance (§2.12), also while its hooks run, when a
            // completeStep may still answer a wait inside them.
            if let runtime = live[instanceId], runtime.record.state.isTerminal { _ = try liveRuntime(instanceId) }
            try completeStep(instanceId: instanceId, stepId: String(type.dropFirst("human_input:".count)), output: payload)
            return
        }
        // The instance first (§2.12: a signal needs a non-terminal instance), then the type.
        let runtime = try liveRuntime(instanceId)
        guard Self.signalTypes.contains(type) else { throw StepwiseError(.invalidInput, "unknown signal type '\(type)'") }
        switch type {
        // Pause and resume cover the instance's sub_sequence descendants too (parents first).
        case "pause":
            for target in [runtime.id] + liveDescendants(of: runtime.id) { try transition(target) { $0.setPaused(true) } }
        case "resume":
            for target in [runtime.id] + liveDescendants(of: runtime.id) {
                guard let current = live[target], !current.record.state.isTerminal else { continue }
                try transition(target) { $0.setPaused(false) }
                if let resumed = live[target] { requeueRunnable(resumed) }
                for entry in heldTimers.removeValue(forKey: target) ?? [] { timers.push(entry) }
            }
        case "cancel": try transition(runtime.id) { $0.requestCancellation() }
        default:
            guard case .object(let data)? = payload["data"] else {
                throw StepwiseError(.invalidInput, "update_context needs a payload {\"data\": {…}}")
            }
            try transition(runtime.id) { (machine: inout InstanceMachine) throws(StepwiseError) in
                try machine.mergeIntoData(data)
            }
        }
        try commitPass()
        wake()
    }

    /// Reports the device's power state; re-evaluates `run_when`.
    public func reportPowerState(_ state: PowerState) {
        conditions.power = state
        recheckConditions()
    }

    /// Reports the device's network state; re-evaluates `run_when`.
    public func reportNetworkState(_ state: NetworkState) {
        conditions.network = state
        recheckConditions()
    }

    private func recheckConditions() {
        // After shutdown the conditions are still noted (a reopened engine is told again), but
        // nothing is written: the store is closed.
        guard !isClosed else { return }
        for runtime in live.values where runtime.activeNodes.contains(where: { $0.phase == .awaitingConditions }) {
            transitionIgnoringErrors(runtime.id) { $0.recheckBlockedSteps() }
        }
        try? commitPass()
        wake()
    }

    func liveRuntime(_ id: InstanceID) throws(StepwiseError) -> InstanceRuntime {
        reloadInstancesAfterStorageFailure()
        if let runtime = live[id] {
            if runtime.record.state.isTerminal {
                throw StepwiseError(
                    .invalidState, "instance \(id) is \(runtime.record.state)",
                    context: ["instance_id": .string(id.rawValue), "state": .string(runtime.record.state.rawValue)])
            }
            return runtime
        }
        if let record = try store.loadInstance(id)?.0 {
            throw StepwiseError(
                .invalidState, "instance \(id) is \(record.state)",
                context: ["instance_id": .string(id.rawValue), "state": .string(record.state.rawValue)])
        }
        throw StepwiseError(.notFound, "instance \(id) not found", context: ["instance_id": .string(id.rawValue)])
    }

    /// The "not waiting" error of a `completeStep` on a finished instance, or nil when the
    /// instance or its sequence version cannot be read.
    private func finishedStepError(_ stepID: String, of id: InstanceID) -> StepwiseError? {
        let runtime: InstanceRuntime
        if let live = live[id] {
            runtime = live
        } else {
            guard let (record, nodes) = try? store.loadInstance(id), let program = try? program(for: record.sequence),
                let restored = try? InstanceRuntime(record: record, program: program, nodes: nodes)
            else {
                return nil
            }
            runtime = restored
        }
        return InstanceMachine.stepNotWaiting(stepID, of: runtime)
    }

    /// The live, unfinished sub_sequence instances below `root`, parents before their children.
    func liveDescendants(of root: InstanceID) -> [InstanceID] {
        var result: [InstanceID] = []
        var frontier = [root]
        while !frontier.isEmpty {
            let parents = Set(frontier)
            frontier = live.values
                .filter { $0.record.parentInstance.map(parents.contains) ?? false && !$0.record.state.isTerminal }
                .map(\.id).sorted()
            result += frontier
        }
        return result
    }

    /// Re-queues a resumed instance's runnable nodes that were held back while paused.
    private func requeueRunnable(_ runtime: InstanceRuntime) {
        for node in runtime.activeNodes where node.phase == .queued {
            let queued = queue.contains {
                if case .begin(let i, let n) = $0 { return i == runtime.id && n == node.id }
                return false
            }
            if !queued { queue.append(.begin(runtime.id, node.id)) }
        }
    }

    package func checkOpen() throws(StepwiseError) {
        if isClosed { throw StepwiseError(.shutdown, "the engine was shut down") }
        // Only from a call made with nothing pending (not from inside a pass).
        if lastHousekeeping == nil && !readsOnly && touched.isEmpty && pendingJournal.isEmpty { try housekeepingAtOpen() }
    }

    /// Makes this engine a reader: it serves queries and writes nothing of its own (no GC, no
    /// failing of damaged instances at open), for tools that look at a database another
    /// engine may be running. Its queries still see the other engine's committed changes.
    package func serveReadsOnly() { readsOnly = true }

    /// GC at open (SEMANTICS §6.1, §2.16), done before the first call is served: the actor's
    /// synchronous init cannot run transitions, and no caller can observe the engine earlier.
    /// Expired finished instances are then gone and over-age ones failed for every call. The
    /// outbox is seeded then too, the first time a channel is configured (`seedOutboxIfNeeded`).
    ///
    /// - Throws: the commit's ``StepwiseError`` (`timeout`, `storage`): the call that came first
    ///   fails with it after one wait for the store, not two, and the next call tries again.
    private func housekeepingAtOpen() throws(StepwiseError) {
        failDamagedInstances()
        housekeepingIfDue(now: clock.now())
        seedOutboxIfNeeded()
        do {
            try commitPass()
        } catch {
            lastHousekeeping = nil
            throw error
        }
    }
}

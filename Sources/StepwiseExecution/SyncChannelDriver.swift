import StepwiseJSON
/// The device side of the sync channel, plugged into the engine's run loop (SYNC.md §2.10).
///
/// The engine calls it from `resume()`'s loop when due (as a task of its own, so the loop keeps
/// executing while requests are out), from `runUntilIdle` (one round trip if due and time
/// remains), from ``StepwiseEngine/syncChannel()`` and once at `shutdown()`. The implementation
/// lives in the StepwiseSync module; the engine only knows this protocol.
public protocol SyncChannelDriver: Sendable {
    /// When the next round trip is due, Unix ms (`nil`: never, e.g. nothing to do and no heartbeat).
    func nextDue(for engine: StepwiseEngine) async -> Int64?
    /// Performs a round trip (and its follow-ups while rows remain).
    ///
    /// - Parameter deadline: when given, no request starts after it and none is given longer
    ///   than what is left before it (`runUntilIdle` and `shutdown()` bound the whole round trip
    ///   by `operationTimeoutMs`); `nil`: each request has `operationTimeoutMs`.
    func roundTrip(for engine: StepwiseEngine, deadline: ContinuousClock.Instant?) async -> ChannelSyncResult
}

extension SyncChannelDriver {
    /// Performs a round trip whose requests each have `operationTimeoutMs`.
    public func roundTrip(for engine: StepwiseEngine) async -> ChannelSyncResult {
        await roundTrip(for: engine, deadline: nil)
    }
}

/// The outcome of one channel sync.
public struct ChannelSyncResult: Sendable, Hashable {
    /// Requests sent.
    public var requests: Int
    /// HTTP status of the last response, if any.
    public var httpStatus: Int?
    /// The error of a failed round trip.
    public var error: String?
    /// Commands executed (done or rejected).
    public var commandsExecuted: Int
    /// Outbox rows delivered and deleted.
    public var rowsDelivered: Int
    /// The interval the server asked for, in seconds.
    public var intervalSeconds: Int?
    /// When it finished, Unix ms.
    public var finishedAt: Int64
    /// What the round trip noticed without failing (SYNC.md §2.4, §2.9): commands skipped for
    /// lacking a string id and type, a malformed `sync_interval_secs`, a registration refused
    /// with 409. Short texts that never quote a response body.
    public var warnings: [String] = []

    /// Creates a result.
    public init(
        requests: Int = 0, httpStatus: Int? = nil, error: String? = nil, commandsExecuted: Int = 0, rowsDelivered: Int = 0,
        intervalSeconds: Int? = nil, finishedAt: Int64 = 0
    ) {
        self.requests = requests
        self.httpStatus = httpStatus
        self.error = error
        self.commandsExecuted = commandsExecuted
        self.rowsDelivered = rowsDelivered
        self.intervalSeconds = intervalSeconds
        self.finishedAt = finishedAt
    }

    /// Whether the round trip reached the server and got a usable answer.
    public var succeeded: Bool { error == nil && httpStatus.map { (200..<300).contains($0) } == true }
}

extension StepwiseEngine {
    /// Attaches the sync channel (the umbrella module does this when `syncUrl` is configured).
    public func setSyncChannel(_ driver: (any SyncChannelDriver)?) {
        syncChannelDriver = driver
        wake()
    }

    /// Runs one round trip (ending by `deadline` when given) and keeps its outcome for
    /// ``lastChannelSync``.
    ///
    /// One at a time: a second (the host's `syncChannel()` while the run loop's is out) waits
    /// for the first to end, so two requests never carry the same outbox rows.
    func channelRoundTrip(_ driver: any SyncChannelDriver, deadline: ContinuousClock.Instant? = nil) async -> ChannelSyncResult {
        while isChannelRoundTripOut {
            await withCheckedContinuation { channelRoundTripWaiters.append($0) }
        }
        isChannelRoundTripOut = true
        let result = await driver.roundTrip(for: self, deadline: deadline)
        isChannelRoundTripOut = false
        if !channelRoundTripWaiters.isEmpty { channelRoundTripWaiters.removeFirst().resume() }
        lastChannelSync = result
        return result
    }

    /// `operationTimeoutMs` from now: the end of a round trip bounded as a whole (SEMANTICS
    /// §6.4, SYNC.md §2.10), `runUntilIdle`'s and the final flush of `shutdown()`.
    func channelDeadline() -> ContinuousClock.Instant {
        ContinuousClock.now.advanced(by: .milliseconds(Int64(clamping: configuration.operationTimeoutMs)))
    }

    /// One channel round trip now, bypassing the interval (for push-woken background time).
    ///
    /// - Throws: ``StepwiseError`` `syncNotConfigured` without a channel, `shutdown`.
    public func syncChannel() async throws(StepwiseError) -> ChannelSyncResult {
        try checkOpen()
        guard let driver = syncChannelDriver else {
            throw StepwiseError(.syncNotConfigured, "the sync channel is not configured (syncUrl is empty)")
        }
        return await channelRoundTrip(driver)
    }

    /// A push arrived: a channel round trip is due now (SYNC.md §2.10). No-op without `syncUrl`
    /// and after `shutdown`.
    public func onPushReceived() {
        // After shutdown the store is closed: a late push changes nothing.
        guard isChannelConfigured, !isClosed else { return }
        // A count, not a time: a push in the same millisecond as a round trip's start is still
        // told apart from the pushes that round trip served.
        let received = (try? store.metadata(Self.pushCountKey)).flatMap { $0 }.flatMap(Int64.init) ?? 0
        var batch = StoreBatch()
        batch.metadata = [(Self.pushCountKey, String(received + 1))]
        try? store.commit(batch)
        wake()
    }

    /// The metadata key of the number of pushes received (see ``onPushReceived()``).
    package static let pushCountKey = "sync.push_count"

    /// A persisted engine value (sync state, device context).
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    public func storedValue(_ key: String) throws(StepwiseError) -> String? {
        try checkOpen()
        return try store.metadata(key)
    }

    /// Persists engine values in one transaction.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    public func storeValues(_ values: [(String, String)]) throws(StepwiseError) {
        try checkOpen()
        var batch = StoreBatch()
        batch.metadata = values
        try store.commit(batch)
    }

    /// The interval multiplier of the last reported power state (1 before any report).
    public func powerMultiplier() -> UInt64 { conditions.power?.intervalMultiplier ?? 1 }

    /// Whether the outbox holds nothing to send.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    public func outboxIsEmpty() throws(StepwiseError) -> Bool {
        try checkOpen()
        for kind in OutboxKind.allCases where !(try store.outboxRows(kind, limit: 1).isEmpty) { return false }
        return true
    }

    /// The platforms a registration names (SYNC.md §2.9).
    package static let platforms: Set<String> = ["ios", "android", "macos", "linux"]

    /// Persists the push token; the device registers again before its next channel request.
    ///
    /// - Parameter platform: `ios`, `android`, `macos` or `linux` (any letter case; sent
    ///   lowercase); `nil` keeps the one reported so far.
    /// - Throws: ``StepwiseError`` `invalidInput` (another platform), `storage`, `shutdown`.
    public func registerPushToken(_ token: String, platform: String? = nil) throws(StepwiseError) {
        try checkOpen()
        var values = [("sync.push_token", token)]
        if let platform {
            let name = platform.lowercased()
            guard Self.platforms.contains(name) else {
                throw StepwiseError(
                    .invalidInput, "platform '\(platform)' is not one of ios, android, macos, linux",
                    context: ["platform": .string(platform)])
            }
            values.append(("sync.platform", name))
        }
        try storeValues(values)
        wake()
    }

    /// The engine clock, Unix ms.
    public nonisolated func now() -> Int64 { clock.now() }

    /// Starts a due round trip from the run loop, as a task of its own: local execution never
    /// waits for the server (SEMANTICS §6.4, SYNC.md §2.10). At most one is out at a time; when
    /// it ends, the loop is woken to act on what it brought and to schedule the next.
    ///
    /// - Returns: when the next round trip is due; `nil` while one is out, or without a channel.
    func startChannelRoundTripIfDue() async -> Int64? {
        guard let driver = syncChannelDriver, !isClosed, channelTask == nil else { return nil }
        guard let due = await driver.nextDue(for: self) else { return nil }
        // pause() may have run meanwhile: the loop it stopped starts no more traffic.
        guard due <= clock.now(), isRunning, !isClosed, channelTask == nil else { return due }
        channelTask = Task { [weak self] in
            guard let self else { return }
            _ = await self.channelRoundTrip(driver)
            await self.channelRoundTripEnded()
        }
        return nil
    }

    private func channelRoundTripEnded() {
        channelTask = nil
        wake()
    }
}

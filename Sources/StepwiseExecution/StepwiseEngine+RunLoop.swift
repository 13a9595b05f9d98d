import StepwiseSequences

extension StepwiseEngine {
    /// Starts the background run loop: event-driven (handler results, starts, completions,
    /// signals and due timers advance instances at once), with no polling while idle.
    public func resume() {
        guard !isClosed, loopTask == nil else { return }
        isRunning = true
        isPausedByHost = false
        loopTask = Task(executorPreference: executor.task) { [weak self] in
            while let self, !Task.isCancelled {
                let keepGoing = await self.loopIteration()
                if !keepGoing { break }
            }
        }
    }

    /// How long a pass waits for the results of handler calls still out, to commit them
    /// together.
    static let groupCommitWindow: Duration = .microseconds(100)

    /// One iteration of the run loop: a pass, then sleep until woken or the next timer.
    private func loopIteration() async -> Bool {
        guard isRunning, !isCrashed else { return false }
        // Group commit: while other handler calls are still out, give them up to 100 µs (real
        // time: it only groups commits, it decides nothing) to land in the inbox too, so one
        // transaction records them all. A lone call (one instance's next step) never waits.
        if !inFlight.isEmpty {
            let deadline = ContinuousClock.now + Self.groupCommitWindow
            var yields = 0
            repeat {
                await Task.yield()
                yields += 1
            } while !inFlight.isEmpty && yields < 64 && ContinuousClock.now < deadline
            // pause() may have run meanwhile: it must never be followed by a dispatch.
            guard isRunning, !isCrashed else { return false }
        }
        var progressed = false
        var storageFailed = false
        do {
            progressed = try runPass() > 0 || !touchedLastPass.isEmpty
        } catch {
            // Storage failed: the touched instances were reloaded; try again after a heartbeat
            // (doubling while it keeps failing). Looping at once would re-run the reloaded
            // attempts' handlers as fast as they return while the disk stays full or locked.
            progressed = false
            storageFailed = true
            // A wake that arrived before the pass (a handler result) was for work this pass
            // took and failed to record; it must not cut the back-off short.
            wakePending = false
        }
        if hasImmediateWork && !storageFailed { return true }
        let channelDue = await startChannelRoundTripIfDue()
        if hasImmediateWork && !storageFailed { return true }
        // Heartbeat: tickIntervalMs × the power multiplier, doubling while idle up to
        // max(5 s, base); quiescent (nothing live) → only timers wake the loop.
        // At most the longest §1.4 duration (a heartbeat that never comes), so doubling it and
        // adding it to the time cannot overflow.
        let base = min(Int64(clamping: configuration.tickIntervalMs), SequenceLimits.maxDurationMilliseconds)
            * Int64(conditions.power?.intervalMultiplier ?? 1)
        heartbeatMs = progressed ? base : min(max(heartbeatMs * 2, base), max(5_000, base))
        var deadline = nextDeadline()
        // An instance whose reload failed with its commit is live too: keep a heartbeat to retry it.
        if !live.isEmpty || !instancesToReload.isEmpty {
            let beat = clock.now() + heartbeatMs
            deadline = min(deadline ?? beat, beat)
        }
        if let channelDue { deadline = min(deadline ?? channelDue, channelDue) }
        if let deadline { armTimer(at: deadline) }
        // Nothing runs: the store may do deferred work now rather than in a later commit.
        if inFlight.isEmpty && !wakePending && !storageFailed { try? store.idle() }
        await waitForWake()
        return isRunning && !isCrashed
    }

    /// Wakes the run loop (new work arrived).
    func wake() {
        if let continuation = wakeContinuation {
            wakeContinuation = nil
            continuation.resume()
        } else {
            wakePending = true
        }
    }

    /// Sleeps until ``wake()``, or returns at once when a wake came first.
    ///
    /// The check is made inside the continuation's body: entering `withCheckedContinuation` can
    /// hop executors, and a wake run in that gap must not be lost.
    private func waitForWake() async {
        await withCheckedContinuation { continuation in
            if wakePending {
                wakePending = false
                continuation.resume()
            } else {
                wakeContinuation = continuation
            }
        }
    }

    private func armTimer(at deadline: Int64) {
        if let armed = armedDeadline, armed <= deadline, timerTask != nil { return }
        timerTask?.cancel()
        armedDeadline = deadline
        let clock = self.clock
        timerTask = Task { [weak self] in
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            await self?.timerWake()
        }
    }

    private func timerWake() {
        armedDeadline = nil
        timerTask = nil
        wake()
    }

    /// Stops dispatching; returns when in-flight handlers finish or `maxTickDurationMs` passes.
    /// Later results are still recorded.
    public func pause() async {
        await pause(waitingUpToMs: Int64(clamping: configuration.maxTickDurationMs))
    }

    /// `pause()` giving handler calls in flight `budgetMs` (real time) to finish.
    private func pause(waitingUpToMs budgetMs: Int64) async {
        isRunning = false
        loopTask?.cancel()
        loopTask = nil
        wake()
        await waitForInFlight(budgetMs: budgetMs)
        _ = try? runPass(dispatch: false)
        // Results of calls still out are recorded as they arrive (see `handlerReturned`).
        isPausedByHost = true
        // A crashed engine never touches its store again (another may have opened the file).
        if !isCrashed { try? store.settle() }
    }

    /// Pauses, then closes: every later call throws `shutdown`. Idempotent.
    public func shutdown() async {
        await shutdown(waitingUpToMs: Int64(clamping: configuration.maxTickDurationMs))
    }

    /// `shutdown()` giving handler calls in flight `budgetMs` (real time) to finish; calls still
    /// out then are cancelled and run again (same attempt) by the next engine. The conformance
    /// runner restarts with 0: its handlers wait on a virtual clock that no real wait moves.
    package func shutdown(waitingUpToMs budgetMs: Int64) async {
        guard !isShutdown else { return }
        await pause(waitingUpToMs: budgetMs)
        if let driver = syncChannelDriver, !isCrashed {
            // One final flush, bounded by operationTimeoutMs as a whole. A round trip the run
            // loop started is cancelled first (its transfer stops, it starts no more requests):
            // the flush sends what it would have, and its late steps must not follow the flush.
            let deadline = channelDeadline()
            if let running = channelTask {
                running.cancel()
                await running.value
            }
            _ = await channelRoundTrip(driver, deadline: deadline)
        }
        isShutdown = true
        timerTask?.cancel()
        timerTask = nil
        deliveryTask?.cancel()
        deliveryContinuation?.resume()
        deliveryContinuation = nil
        deliveryTask = nil
        for call in inFlight.values { call.task.cancel() }
    }

    /// Waits (yielding) until no handler is in flight or the budget passes.
    private func waitForInFlight(budgetMs: Int64) async {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(budgetMs))
        while !inFlight.isEmpty && ContinuousClock.now < deadline {
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    /// One tick (SEMANTICS §6.4): fire due timers, advance every instance, dispatch up to the
    /// free slots, await the calls started (bounded by their timeouts and `maxTickDurationMs`),
    /// record their outcomes.
    ///
    /// - Throws: ``StepwiseError`` `storage` or `shutdown`.
    public func tickOnce() async throws(StepwiseError) -> TickResult {
        try checkOpen()
        // Driven tick by tick now: each tick records what came in (and counts it).
        isPausedByHost = false
        advancedInPass = []
        var steps = try runPass()
        let started = ContinuousClock.now
        let budget = Duration.milliseconds(Int64(clamping: configuration.maxTickDurationMs))
        // As far as possible: each result recorded may make the next step runnable, which this
        // tick dispatches and awaits too, until nothing runs or the budget is spent.
        while ContinuousClock.now - started < budget {
            // A result came in, or a timer (an attempt's timeout) came due: record it now, so
            // a hung handler holds the tick for its timeout, not for `maxTickDurationMs`.
            if !inbox.isEmpty || (nextDeadline().map { $0 <= clock.now() } ?? false) {
                steps += try runPass()
                continue
            }
            if inFlight.isEmpty { break }
            try? await Task.sleep(nanoseconds: 200_000)
        }
        // The budget is spent: record what came in, start nothing the tick would not await.
        steps += try runPass(dispatch: false)
        let advanced = advancedInPass.count
        return TickResult(
            instancesAdvanced: advanced, stepsExecuted: steps, hasPendingWork: hasImmediateWork || !inFlight.isEmpty,
            nextDueAt: nextDeadline())
    }

    /// Runs ticks until nothing is runnable, or a budget ends (for background windows).
    ///
    /// - Throws: ``StepwiseError`` `invalidInput` when a budget is not positive, `storage`, `shutdown`.
    public func runUntilIdle(maxTicks: Int, timeBudgetMs: UInt64) async throws(StepwiseError) -> BackgroundRunResult {
        try checkOpen()
        guard maxTicks > 0, timeBudgetMs > 0 else {
            throw StepwiseError(.invalidInput, "maxTicks and timeBudgetMs must both be greater than 0")
        }
        let started = ContinuousClock.now
        var result = BackgroundRunResult(
            ticksExecuted: 0, instancesAdvanced: 0, stepsExecuted: 0, hasPendingWork: false, budgetExhausted: false,
            nextDueAt: nil)
        while result.ticksExecuted < maxTicks {
            if ContinuousClock.now - started >= .milliseconds(Int64(clamping: timeBudgetMs)) { break }
            let tick = try await tickOnce()
            result.ticksExecuted += 1
            result.instancesAdvanced += tick.instancesAdvanced
            result.stepsExecuted += tick.stepsExecuted
            if !tick.hasPendingWork && tick.instancesAdvanced == 0 { break }
            if !hasImmediateWork && inFlight.isEmpty { break }
        }
        let remaining = Duration.milliseconds(Int64(clamping: timeBudgetMs)) - (ContinuousClock.now - started)
        if let driver = syncChannelDriver, remaining >= .milliseconds(Int64(clamping: configuration.operationTimeoutMs)),
            let due = await driver.nextDue(for: self), due <= clock.now()
        {
            _ = await channelRoundTrip(driver, deadline: channelDeadline())
        }
        result.hasPendingWork = hasImmediateWork || !inFlight.isEmpty
        result.budgetExhausted = result.hasPendingWork
        if inFlight.isEmpty && !isCrashed { try? store.settle() }
        result.nextDueAt = nextDeadline()
        // The next window must also come when the channel is due, or a device with nothing
        // else scheduled would never sync again in the background.
        if let driver = syncChannelDriver, !isClosed, let channelDue = await driver.nextDue(for: self) {
            result.nextDueAt = min(result.nextDueAt ?? channelDue, channelDue)
        }
        return result
    }
}

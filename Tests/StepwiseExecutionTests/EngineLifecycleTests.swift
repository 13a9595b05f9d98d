import Foundation
import Stepwise
import Testing

@Suite("Device conditions, listener delivery, dead letters, GC and built-ins")
struct EngineLifecycleTests {
    @Test func runWhenWaitsWithAReasonAndResumesWithoutBurningAttempts() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let counter = Counter()
        let engine = try await openEngine(db, clock: clock, handlers: ["upload": { _ in counter.hit("upload"); return [:] }])
        let sequence = #"{"name": "u", "version": 1, "blocks": [{"type": "step", "id": "up", "handler": "upload", "run_when": {"network": "unmetered", "charging": true}}]}"#
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        await engine.reportNetworkState(.metered)
        await engine.reportPowerState(.unplugged)
        let id = try await engine.start("u")
        try await runToRest(engine, clock: clock)
        var snapshot = try await engine.instance(id)
        #expect(snapshot.state == .waiting)
        #expect(snapshot.waitingReasons.first?.contains("needs an unmetered network (metered)") == true)
        #expect(snapshot.waitingReasons.first?.contains("needs the device charging (unplugged)") == true)
        #expect(counter.count("upload") == 0)
        await engine.reportNetworkState(.unmetered)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .waiting)
        await engine.reportPowerState(.charging)
        try await runToRest(engine, clock: clock)
        snapshot = try await engine.instance(id)
        #expect(snapshot.state == .completed)
        #expect(counter.count("upload") == 1)
        #expect(try await engine.stepRuns(instanceId: id).map(\.attempt) == [1])
        await engine.shutdown()
    }

    @Test func listenerEventsSurviveRestartsWithoutDuplicates() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        var engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        // Events produced before any listener is set are delivered when one is set.
        let id = try await engine.start("approval")
        try await runToRest(engine, clock: clock)
        let first = RecordingListener()
        await engine.setListener(first)
        #expect(await eventually { first.all.contains("pending approve Approve?") })
        #expect(first.all.prefix(2) == ["started prepare 1", "completed prepare"])
        await engine.shutdown()

        engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        let second = RecordingListener()
        await engine.setListener(second)
        try await engine.completeStep(instanceId: id, stepId: "approve", output: ["value": "yes"])
        try await runToRest(engine, clock: clock)
        #expect(await eventually { second.all.last == "completed" })
        #expect(!second.all.contains("started prepare 1"), "already delivered events are not repeated")
        #expect(second.all.contains("completed approve"))
        await engine.shutdown()
    }

    @Test func deadLetterAcknowledgeAndRedriveFromTheFailedStep() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let counter = Counter()
        let healthy = Counter()
        let engine = try await openEngine(db, clock: clock, handlers: [
            "work": { ctx in counter.hit(ctx.stepId); return [:] },
            "flaky": { _ in
                counter.hit("flaky")
                if healthy.count("fixed") == 0 { throw StepError.permanent("backend down", code: "503") }
                return ["ok": true]
            },
        ])
        let sequence = #"""
            {"name": "d", "version": 1, "blocks": [
              {"type": "step", "id": "a", "handler": "work"},
              {"type": "step", "id": "b", "handler": "flaky", "retry": {"max_attempts": 1, "initial_backoff": 10, "max_backoff": 10}},
              {"type": "step", "id": "c", "handler": "work"}
            ]}
            """#
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        let id = try await engine.start("d", dedupKey: "job")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .failed)
        #expect(try await engine.instance(id).error?.message == "step 'b' failed: backend down")
        let letters = try await engine.deadLetters()
        #expect(letters.items.count == 1)
        let letter = try #require(letters.items.first)
        #expect(letter.blockId == "b" && letter.handler == "flaky" && letter.error.code == "503" && letter.attempts == 1)
        #expect(try await engine.deadLetters(unacknowledgedOnly: true).items.count == 1)
        try await engine.acknowledgeDeadLetter(letter.id)
        try await engine.acknowledgeDeadLetter(letter.id)
        #expect(try await engine.deadLetters(unacknowledgedOnly: true).items.isEmpty)

        healthy.hit("fixed")
        try await engine.redrive(deadLetterId: letter.id)
        try await runToRest(engine, clock: clock)
        let snapshot = try await engine.instance(id)
        #expect(snapshot.state == .completed)
        #expect(counter.count("a") == 1, "completed steps do not re-run")
        #expect(counter.count("flaky") == 2)
        #expect(counter.count("c") == 1)
        let runs = try await engine.stepRuns(instanceId: id).filter { $0.stepId == "b" }
        #expect(runs.map(\.attempt) == [1, 2], "attempt numbers continue after a redrive")
        #expect(try await engine.deadLetters().items.first?.redrivenAt != nil)
        let again = await #expect(throws: StepwiseError.self) { try await engine.redrive(deadLetterId: letter.id) }
        #expect(again?.code == .invalidState)
        #expect(try await engine.purgeDeadLetters(olderThanMs: -1) == 1)
        await engine.shutdown()
    }

    /// A failed instance's version evicted since (superseded, the store full) is still stored
    /// for it: a redrive brings it back into the catalog, retired (listed, no new starts), and
    /// it takes a place under `maxStoredSequences` again, or the redrive is refused.
    @Test(arguments: [true, false]) func redriveOfAnEvictedVersionPinsItBackUnderTheStoreLimit(room: Bool) async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        var configuration = EngineConfiguration.forTests
        configuration.maxStoredSequences = 3
        let healthy = Counter()
        let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: [
            "flaky": { _ in
                if healthy.count("fixed") == 0 { throw StepError.permanent("down") }
                return [:]
            },
        ])
        func load(_ name: String, _ v: Int) async throws {
            _ = try await engine.loadSequence(json: Array(
                #"{"name": "\#(name)", "version": \#(v), "blocks": [{"type": "step", "id": "s", "handler": "flaky"}]}"#.utf8))
        }
        func catalog() async -> [String] { await engine.loadedSequences().map(\.key.description) }
        try await load("f", 1)
        let id = try await engine.start("f")
        try await runToRest(engine, clock: clock)
        let letter = try #require(try await engine.deadLetters().items.first)
        try await load("f", 2)
        // With room: f v2 stays superseded in a full store. Without: every version is the latest of its name.
        try await load(room ? "f" : "g", 3)
        try await load("h", 1)
        #expect(await catalog() == (room ? ["f v2", "f v3", "h v1"] : ["f v2", "g v3", "h v1"]))
        healthy.hit("fixed")
        guard room else {
            let full = await #expect(throws: StepwiseError.self) { try await engine.redrive(deadLetterId: letter.id) }
            #expect(full?.code == .resourceLimit)
            #expect(try await engine.instance(id).state == .failed)
            await engine.shutdown()
            return
        }
        try await engine.redrive(deadLetterId: letter.id)
        #expect(await catalog() == ["f v1", "f v3", "h v1"])
        #expect(await engine.loadedSequences().first?.isRetired == true)
        let refused = await #expect(throws: StepwiseError.self) { try await engine.start("f", options: StartOptions(version: 1)) }
        #expect(refused?.code == .notFound)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        #expect(await catalog() == ["f v3", "h v1"])
        await engine.shutdown()
    }

    /// §2.11 and §6.8: on_failure runs after the failure; a redrive waits for it to finish.
    @Test func redriveWaitsForTheOnFailureStepsToFinish() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let healthy = Counter()
        let engine = try await openEngine(db, clock: clock, handlers: [
            "work": { _ in [:] },
            "flaky": { _ in
                if healthy.count("fixed") == 0 { throw StepError.permanent("down") }
                return [:]
            },
        ])
        _ = try await engine.loadSequence(json: Array(#"""
            {"name": "hooked", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "flaky"}],
             "on_failure": [{"type": "step", "id": "notify", "handler": "work", "wait_for_input": {"prompt": "Seen?"}}]}
            """#.utf8))
        let id = try await engine.start("hooked")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .failed)
        let letter = try #require(try await engine.deadLetters().items.first)
        healthy.hit("fixed")
        let early = await #expect(throws: StepwiseError.self) { try await engine.redrive(deadLetterId: letter.id) }
        #expect(early?.code == .invalidState)
        #expect(early?.message.contains("still running its on_failure steps") == true)
        try await engine.completeStep(instanceId: id, stepId: "notify", output: ["value": "yes"])
        try await runToRest(engine, clock: clock)
        try await engine.redrive(deadLetterId: letter.id)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        await engine.shutdown()
    }

    @Test func redriveAfterTheStepBudgetRunsTheCancelledStepWithAFreshBudget() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let counter = Counter()
        var configuration = EngineConfiguration.forTests
        configuration.maxStepsPerInstance = 2
        let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: [
            "work": { ctx in counter.hit(ctx.stepId); return [:] },
        ])
        let sequence = #"""
            {"name": "budget", "version": 1, "blocks": [
              {"type": "step", "id": "a", "handler": "work"},
              {"type": "step", "id": "b", "handler": "work"},
              {"type": "step", "id": "c", "handler": "work"}
            ]}
            """#
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        let id = try await engine.start("budget")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).error?.message == "max steps per instance (2) exceeded")
        let letter = try #require(try await engine.deadLetters().items.first)
        try await engine.redrive(deadLetterId: letter.id)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        #expect(counter.count("a") == 1 && counter.count("b") == 1 && counter.count("c") == 1)
        await engine.shutdown()
    }

    @Test func redriveLeavesCaughtFailuresAndDecidedRacesAlone() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let counter = Counter()
        let engine = try await openEngine(db, clock: clock, handlers: [
            "work": { ctx in counter.hit(ctx.stepId); return [:] },
            "boom": { ctx in counter.hit(ctx.stepId); throw StepError.permanent("boom") },
            "flaky": { ctx in
                counter.hit(ctx.stepId)
                if counter.count(ctx.stepId) == 1 { throw StepError.permanent("not yet") }
                return [:]
            },
        ])
        let sequence = #"""
            {"name": "handled", "version": 1, "blocks": [
              {"type": "try_catch", "id": "guarded",
               "try_block": [{"type": "step", "id": "risky", "handler": "boom"}],
               "catch_block": [{"type": "step", "id": "recover", "handler": "work"}]},
              {"type": "race", "id": "first", "branches": [
                [{"type": "step", "id": "fast", "handler": "work"}],
                [{"type": "step", "id": "slow", "handler": "work", "delay": {"duration": 10000}}]
              ]},
              {"type": "step", "id": "final", "handler": "flaky", "delay": {"duration": 5000}}
            ]}
            """#
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        let id = try await engine.start("handled")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .failed)
        let letter = try #require(try await engine.deadLetters().items.first)
        #expect(letter.blockId == "final")

        let failedAt = clock.now()
        try await engine.redrive(deadLetterId: letter.id)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        #expect(clock.now() == failedAt, "the redriven step's delay fired once already: it does not wait again")
        #expect(counter.count("risky") == 1, "a failure the try_catch caught is not redriven")
        #expect(counter.count("recover") == 1 && counter.count("fast") == 1)
        #expect(counter.count("slow") == 0, "the race's loser stays cancelled")
        #expect(counter.count("final") == 2)
        await engine.shutdown()
    }

    @Test func lifetimeFailsLiveInstancesAndGCDeletesOldTerminalOnes() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let (engine, _, done, stuck) = try await engineWithFinishedAndStuckInstances(db, clock: clock)
        #expect(try await engine.instance(done).state == .completed)
        clock.advance(to: 61_000)
        _ = try await engine.tickOnce()
        let failed = try await engine.instance(stuck)
        #expect(failed.state == .failed && failed.error?.message == "lifetime exceeded")
        clock.advance(to: 200_000)
        _ = try await engine.tickOnce()
        let gone = await #expect(throws: StepwiseError.self) { try await engine.instance(done) }
        #expect(gone?.code == .notFound)
        // A failed instance with an unacknowledged dead letter is kept.
        #expect(try await engine.instance(stuck).state == .failed)
        await engine.shutdown()
    }

    /// Listener events are delivered at least once across restarts: GC keeps a finished
    /// instance whose events the listener has not had yet (the app was killed first), until
    /// they are delivered or one more lifetime passes.
    @Test(arguments: [true, false]) func gcWaitsForUndeliveredListenerEventsForOneMoreLifetime(listenerReturns: Bool) async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        var configuration = EngineConfiguration.forTests
        configuration.maxInstanceLifetimeSecs = 120
        let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(#"{"name": "q", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "work"}]}"#.utf8))
        let listener = RecordingListener()
        await engine.setListener(listener)
        let delivered = try await engine.start("q")
        try await runToRest(engine, clock: clock)
        #expect(await eventually { listener.all.contains("completed") })
        await engine.setListener(nil)
        clock.advance(to: 10_000)
        let undelivered = try await engine.start("q")
        try await runToRest(engine, clock: clock)

        // Both finished over a lifetime ago: only the one whose events were delivered goes.
        clock.advance(to: 140_000)
        _ = try await engine.tickOnce()
        let gone = await #expect(throws: StepwiseError.self) { try await engine.instance(delivered) }
        #expect(gone?.code == .notFound)
        #expect(try await engine.instance(undelivered).state == .completed)

        if listenerReturns {
            let returned = RecordingListener()
            await engine.setListener(returned)
            #expect(await eventually { returned.all.filter { $0 == "completed" }.count == 1 })
            // A minute later (the next GC), well within the second lifetime.
            clock.advance(to: 200_000)
        } else {
            // Nobody comes for them: kept at the next GC, gone after a second lifetime.
            clock.advance(to: 200_000)
            _ = try await engine.tickOnce()
            #expect(try await engine.instance(undelivered).state == .completed)
            clock.advance(to: 260_000)
        }
        _ = try await engine.tickOnce()
        let collected = await #expect(throws: StepwiseError.self) { try await engine.instance(undelivered) }
        #expect(collected?.code == .notFound)
        await engine.shutdown()
    }

    @Test func gcDeletesEverySubSequenceInstanceBelowAnExpiredRoot() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        var configuration = EngineConfiguration.forTests
        configuration.maxInstanceLifetimeSecs = 60
        let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
        for (name, body) in [
            ("leaf", #"{"type": "step", "id": "s", "handler": "work"}"#),
            ("middle", #"{"type": "sub_sequence", "id": "down", "sequence_name": "leaf"}"#),
            ("top", #"{"type": "sub_sequence", "id": "down", "sequence_name": "middle"}"#),
        ] {
            _ = try await engine.loadSequence(json: Array(#"{"name": "\#(name)", "version": 1, "blocks": [\#(body)]}"#.utf8))
        }
        let root = try await engine.start("top")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(root).state == .completed)
        let middle = try #require(try await engine.instances(filter: InstanceFilter(parent: root), limit: 10).items.first)
        let leaf = try #require(try await engine.instances(filter: InstanceFilter(parent: middle.instanceId), limit: 10).items.first)

        clock.advance(to: 200_000)
        _ = try await engine.tickOnce()
        for id in [root, middle.instanceId, leaf.instanceId] {
            let gone = await #expect(throws: StepwiseError.self) { try await engine.instance(id) }
            #expect(gone?.code == .notFound, "\(id) is deleted with its root")
        }
        await engine.shutdown()
    }

    /// Durations from a pushed sequence at the edges of their ranges never trap (a trap would
    /// recur at every reopen): a poll interval of any integer saturates at the longest §1.4
    /// duration; a sleep past it fails its attempt.
    @Test func outOfRangeWaitsNeitherTrapNorOverflow() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await openEngine(db, clock: clock)
        let polling = #"""
            {"name": "p", "version": 1, "blocks": [{"type": "loop", "id": "l", "condition": "true", "max_iterations": 2,
              "poll_interval": 9223372036854775807, "body": [{"type": "step", "id": "s", "handler": "noop"}]}]}
            """#
        _ = try await engine.loadSequence(json: Array(polling.utf8))
        let poller = try await engine.start("p")
        let result = try await engine.runUntilIdle(maxTicks: 20, timeBudgetMs: 2_000)
        let expectedDue: Int64 = 1_000 + 9_007_199_254_740_000
        #expect(result.nextDueAt == expectedDue)
        #expect(try await engine.instance(poller).state == .scheduled)

        for params in [#"{"seconds": 1e300}"#, #"{"ms": 1e19}"#, #"{"duration": 9007199254740993}"#, #"{"ms": -1}"#] {
            let name = "z\(params.hashValue & 0xffff)"
            let sleeping = #"{"name": "\#(name)", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "sleep", "params": \#(params)}]}"#
            _ = try await engine.loadSequence(json: Array(sleeping.utf8))
            let id = try await engine.start(name)
            _ = try await engine.runUntilIdle(maxTicks: 20, timeBudgetMs: 2_000)
            let snapshot = try await engine.instance(id)
            #expect(snapshot.state == .failed, "\(params)")
            #expect(snapshot.error?.message.hasSuffix("at least 0 and at most 2^53 ms") == true, "\(params)")
        }
        await engine.shutdown()
    }

    /// Configuration values at the top of their types (a host meaning "never" or "forever")
    /// saturate: the run loop, ticks, GC and shutdown work with them instead of trapping.
    @Test func configurationValuesAtTheirMaximumSaturate() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        var configuration = EngineConfiguration.forTests
        configuration.tickIntervalMs = .max
        configuration.maxTickDurationMs = .max
        configuration.maxInstanceLifetimeSecs = .max
        configuration.operationTimeoutMs = .max
        configuration.handlerTimeoutMs = .max
        let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
        let quick = #"{"name": "q", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "work"}, {"type": "step", "id": "t", "handler": "work"}]}"#
        _ = try await engine.loadSequence(json: Array(quick.utf8))
        let first = try await engine.start("q")
        _ = try await engine.runUntilIdle(maxTicks: 1, timeBudgetMs: .max)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(first).state == .completed)
        let second = try await engine.start("q")
        await engine.resume()
        #expect(await eventually { (try? await engine.instance(second).state) == .completed })
        clock.advance(to: 9_000_000_000_000)
        _ = try await engine.tickOnce()
        #expect(try await engine.instance(first).state == .completed, "a lifetime of UInt64.max seconds never expires")
        await engine.shutdown()
    }

    /// The wall clock's sleep saturates: a deadline past its range waits (until cancelled)
    /// instead of trapping, and one far in the past returns at once.
    @Test func theSystemClockSleepsUntilAnyDeadline() async throws {
        try await SystemClock().sleep(until: .min)
        try await SystemClock().sleep(until: 0)
        let far = Task { try await SystemClock().sleep(until: .max) }
        far.cancel()
        await #expect(throws: CancellationError.self) { try await far.value }
    }

    @Test func builtinsSleepDurablySetDataAndFail() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        var engine = try await openEngine(db, clock: clock)
        let sequence = #"""
            {"name": "b", "version": 1, "blocks": [
              {"type": "step", "id": "mark", "handler": "set", "params": {"phase": "warming"}},
              {"type": "step", "id": "nap", "handler": "sleep", "params": {"seconds": 30}},
              {"type": "step", "id": "say", "handler": "echo", "params": {"phase": "{{ data.phase }}"}},
              {"type": "try_catch", "id": "t", "try_block": [{"type": "step", "id": "boom", "handler": "fail", "params": {"message": "on purpose", "code": "x"}}], "catch_block": []},
              {"type": "step", "id": "end", "handler": "noop"}
            ]}
            """#
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        let id = try await engine.start("b")
        _ = try await engine.runUntilIdle(maxTicks: 20, timeBudgetMs: 2_000)
        var snapshot = try await engine.instance(id)
        #expect(snapshot.state == .scheduled)
        #expect(snapshot.data["phase"] == "warming")
        // The sleep is a persisted timer: it survives a restart.
        await engine.shutdown()
        engine = try await openEngine(db, clock: clock)
        clock.advance(to: 30_000)
        try await runToRest(engine, clock: clock)
        snapshot = try await engine.instance(id)
        #expect(snapshot.state == .completed)
        #expect(snapshot.outputs["nap"] == ["slept_ms": 30_000])
        #expect(snapshot.outputs["say"] == ["phase": "warming"])
        #expect(snapshot.data["_error"]?["message"] == nil)
        await engine.shutdown()
    }
}

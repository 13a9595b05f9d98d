import Foundation
import Stepwise
import Testing

/// Handler calls start on the engine's thread or on the shared pool, as configured; either way
/// the run loop finishes the instance and a handler may call back into the engine.
@Suite struct HandlerExecutionTests {
    @Test(arguments: [EngineConfiguration.HandlerExecution.engineThread, .sharedPool])
    func handlersRunAndMayCallTheEngine(_ execution: EngineConfiguration.HandlerExecution) async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        var configuration = EngineConfiguration.forTests
        configuration.handlerExecution = execution
        let engine = try StepwiseEngine(databasePath: database.path, configuration: configuration)
        let box = EngineBox()
        await engine.registerHandler("look") { context in
            // Re-entering the engine from a handler must not wait on the thread the call holds.
            let state = try await box.engine?.instance(context.instanceId).state
            return ["state": .string(state?.rawValue ?? "none")]
        }
        box.engine = engine
        _ = try await engine.loadSequence(
            json: Array(#"{"name": "re", "version": 1, "blocks": [{"type": "step", "id": "a", "handler": "look"}, {"type": "step", "id": "b", "handler": "look"}]}"#.utf8))
        let id = try await engine.start("re")
        await engine.resume()
        #expect(await eventually { (try? await engine.instance(id).state) == .completed })
        let snapshot = try await engine.instance(id)
        #expect(snapshot.outputs["b"] == ["state": "running"])
        await engine.shutdown()
    }

    /// A timed-out attempt whose handler ignores cancellation returns after its retry was
    /// launched under the same node: its result must not free the retry's slot, or the retry
    /// would escape `maxConcurrentSteps`, `pause()` and `shutdown()`.
    @Test func aLateResultOfATimedOutAttemptLeavesItsRetryInFlight() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let gates = [Gate(), Gate()]
        let attempts = Counter()
        let engine = try await openEngine(database, clock: clock, handlers: [
            "slow": { context in
                attempts.hit("slow")
                await gates[context.attempt - 1].wait()
                return ["attempt": .integer(Int64(context.attempt))]
            },
        ])
        _ = try await engine.loadSequence(json: Array(#"""
            {"name": "late", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "slow", "timeout": 1000,
              "retry": {"max_attempts": 2, "initial_backoff": 10, "max_backoff": 10}}]}
            """#.utf8))
        let id = try await engine.start("late")
        await engine.resume()
        #expect(await eventually { attempts.count("slow") == 1 })
        clock.advance(to: 2_000)
        #expect(await eventually { (try? await engine.instance(id).waitingReasons.contains { $0.contains("backs off") }) == true })
        clock.advance(to: 2_010)
        #expect(await eventually { attempts.count("slow") == 2 })
        #expect(await engine.inFlightCount == 1)
        gates[0].open()
        // The late result is recorded (and ignored: its attempt is over); the retry stays in flight.
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(await engine.inFlightCount == 1)
        gates[1].open()
        #expect(await eventually { (try? await engine.instance(id).state) == .completed })
        #expect(try await engine.instance(id).outputs["s"] == ["attempt": 2])
        await engine.shutdown()
    }

    /// SEMANTICS §6.2: a step whose handler is not registered waits until it is; an
    /// escalation handler too (a wait timing out while the app was closed, handlers registered
    /// only after the engine resumed).
    @Test func anEscalationWaitsForItsHandlerToBeRegistered() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let sequence = #"""
            {"name": "esc", "version": 1, "blocks": [
              {"type": "step", "id": "ask", "handler": "work", "wait_for_input": {"prompt": "ok?", "timeout": 1000,
                "escalation_handler": "escalate", "choices": [{"value": "yes"}, {"value": "no"}]}},
              {"type": "step", "id": "after", "handler": "work"}]}
            """#
        var engine = try await openEngine(database, clock: clock, handlers: ["work": { _ in [:] }, "escalate": { _ in ["value": "no"] }])
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        let id = try await engine.start("esc")
        _ = try await engine.runUntilIdle(maxTicks: 20, timeBudgetMs: 600_000)
        #expect(try await engine.instance(id).state == .waiting)
        await engine.shutdown()

        let escalations = Counter()
        engine = try await openEngine(database, clock: clock, handlers: ["work": { _ in [:] }])
        clock.advance(to: 3_000)
        try await runToRest(engine, clock: clock)
        let blocked = try await engine.instance(id)
        #expect(blocked.state == .waiting)
        #expect(blocked.waitingReasons.contains("step 'ask' waits for escalation handler 'escalate' to be registered"))
        await engine.registerHandler("escalate") { _ in
            escalations.hit("escalate")
            return ["value": "no"]
        }
        try await runToRest(engine, clock: clock)
        let done = try await engine.instance(id)
        #expect(done.state == .completed)
        #expect(escalations.count("escalate") == 1)
        await engine.shutdown()
    }

    /// SEMANTICS §6.4: `tickOnce` awaits the calls it started, each bounded by its timeout: a
    /// hung handler's timeout ends the wait, not `maxTickDurationMs` (here ten minutes).
    @Test func aTickStopsWaitingForAHungHandlerAtItsTimeout() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let clock = VirtualClock(start: 1_000)
        var configuration = EngineConfiguration.forTests
        configuration.maxTickDurationMs = 600_000
        let gate = Gate()
        let engine = try await openEngine(database, clock: clock, configuration: configuration, handlers: [
            "hang": { _ in
                await gate.wait()
                return [:]
            },
        ])
        _ = try await engine.loadSequence(json: Array(
            #"{"name": "hung", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "hang", "timeout": 1000}]}"#.utf8))
        let id = try await engine.start("hung")
        let tick = Task { try await engine.tickOnce() }
        #expect(await eventually { gate.waiting })
        clock.advance(to: 2_500)
        let result = try await tick.value
        #expect(result.hasPendingWork == false)
        let snapshot = try await engine.instance(id)
        #expect(snapshot.state == .failed)
        #expect(snapshot.error?.message.contains("timed out") == true, "\(snapshot.error?.message ?? "")")
        gate.open()
        await engine.shutdown()
    }

    /// SEMANTICS §6.4: a tick advances every instance as far as possible and awaits the calls it
    /// started: instant steps run to the end in one tick, and no call is left in flight.
    @Test func aTickRunsInstantStepsToTheEnd() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await openEngine(database, clock: clock, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(#"""
            {"name": "three", "version": 1, "blocks": [{"type": "step", "id": "a", "handler": "work"},
              {"type": "step", "id": "b", "handler": "work"}, {"type": "step", "id": "c", "handler": "work"}]}
            """#.utf8))
        let id = try await engine.start("three")
        let tick = try await engine.tickOnce()
        #expect(tick.stepsExecuted == 3 && !tick.hasPendingWork)
        #expect(try await engine.instance(id).state == .completed)
        // A delay's timer in the future is not awaited: the tick ends with it pending.
        _ = try await engine.loadSequence(json: Array(#"""
            {"name": "later", "version": 1, "blocks": [{"type": "step", "id": "a", "handler": "work"},
              {"type": "step", "id": "b", "handler": "work", "delay": {"duration": 5000}}]}
            """#.utf8))
        let waiting = try await engine.start("later")
        let first = try await engine.tickOnce()
        #expect(first.stepsExecuted == 1 && first.nextDueAt != nil)
        clock.advance(to: 1_000 + 5_000)
        #expect(try await engine.tickOnce().stepsExecuted == 1)
        #expect(try await engine.instance(waiting).state == .completed)
        await engine.shutdown()
    }

    /// SEMANTICS §2.1: `running` means a handler is in flight, which none is in a new process:
    /// reopened after a crash mid-call, the instance reads `scheduled` until the call is
    /// dispatched again (same attempt).
    @Test func anInstanceInterruptedMidCallReadsScheduledWhenReopened() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let gate = Gate()
        let engine = try await openEngine(database, clock: clock, handlers: ["slow": { _ in await gate.wait(); return [:] }])
        _ = try await engine.loadSequence(json: Array(
            #"{"name": "one", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "slow"}]}"#.utf8))
        let id = try await engine.start("one")
        await engine.resume()
        #expect(await eventually { gate.waiting })
        #expect(try await engine.instance(id).state == .running)
        await engine.simulateCrash()
        let attempts = Counter()
        let reopened = try await openEngine(database, clock: clock, handlers: ["slow": { ctx in attempts.hit("\(ctx.attempt)"); return [:] }])
        #expect(try await reopened.instance(id).state == .scheduled)
        try await runToRest(reopened, clock: clock)
        #expect(try await reopened.instance(id).state == .completed)
        #expect(attempts.count("1") == 1 && attempts.count("2") == 0)
        gate.open()
        await reopened.shutdown()
    }

    @Test func theSharedPoolIsTheDefault() {
        #expect(EngineConfiguration().handlerExecution == .sharedPool)
        #expect(EngineConfiguration.HandlerExecution(rawValue: "shared_pool") == .sharedPool)
    }
}

/// Lets a handler closure reach the engine it is registered on.
final class EngineBox: @unchecked Sendable {
    var engine: StepwiseEngine?
}

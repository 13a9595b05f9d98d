import Foundation
import Stepwise
import Testing

/// Host API details of SEMANTICS §6.3 and §2.12 that the conformance format cannot drive.
@Suite struct SnapshotAndSignalTests {
    /// SEMANTICS §6.3: `currentStep` is the most recently started running step, and a step
    /// behind a delay or a retry backoff is running (§2.1).
    @Test func theCurrentStepIncludesAStepBehindADelayOrABackoff() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await openEngine(database, clock: clock, handlers: [
            "work": { _ in [:] }, "flaky": { _ in throw StepError.retryable("not yet") },
        ])
        _ = try await engine.loadSequence(json: Array(#"""
            {"name": "cur", "version": 1, "blocks": [
              {"type": "step", "id": "later", "handler": "work", "delay": {"duration": 5000}},
              {"type": "step", "id": "flaky", "handler": "flaky", "retry": {"max_attempts": 3, "initial_backoff": 5000, "max_backoff": 5000}}]}
            """#.utf8))
        let id = try await engine.start("cur")
        _ = try await engine.runUntilIdle(maxTicks: 20, timeBudgetMs: 600_000)
        #expect(try await engine.instance(id).currentStep == "later")
        clock.advance(to: 6_000)
        _ = try await engine.runUntilIdle(maxTicks: 20, timeBudgetMs: 600_000)
        let backingOff = try await engine.instance(id)
        #expect(backingOff.waitingReasons.contains { $0.contains("backs off") })
        #expect(backingOff.currentStep == "flaky")
        await engine.shutdown()
    }

    /// SEMANTICS §2.12: a signal needs a live instance before its type is looked at.
    @Test func aSignalChecksItsInstanceBeforeItsType() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await openEngine(database, clock: clock, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(#"{"name": "one", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "work"}]}"#.utf8))
        let id = try await engine.start("one")
        try await runToRest(engine, clock: clock)
        let finished = await #expect(throws: StepwiseError.self) { try await engine.sendSignal(instanceId: id, type: "bogus") }
        #expect(finished?.code == .invalidState)
        let unknown = await #expect(throws: StepwiseError.self) {
            try await engine.sendSignal(instanceId: InstanceID(rawValue: "00000000-0000-4000-8000-00000000000f")!, type: "bogus")
        }
        #expect(unknown?.code == .notFound)
        await engine.shutdown()
    }
}

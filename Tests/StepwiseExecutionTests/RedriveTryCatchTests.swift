import Foundation
import Stepwise
import Synchronization
import Testing

/// §6.8 redrive of a failed try_catch: it resumes at the phase whose failure it did not handle,
/// runs finally once after it, and new nodes of a step get new idempotency keys (§2.4).
@Suite struct RedriveTryCatchTests {
    /// Handler calls as `start <step>#<attempt>` / `end <step>#<attempt>` lines, and their keys.
    final class Calls: Sendable {
        let lines = Mutex<[String]>([])
        let keys = Mutex<[String: [String]]>([:])
        let fixed = Mutex(false)
        func record(_ context: StepContext, fails: Bool) throws -> JSONValue {
            lines.withLock { $0.append("start \(context.stepId)#\(context.attempt)") }
            keys.withLock { $0[context.stepId, default: []].append(context.idempotencyKey) }
            defer { lines.withLock { $0.append("end \(context.stepId)#\(context.attempt)") } }
            if fails && !fixed.withLock({ $0 }) { throw StepError.permanent("not yet") }
            return [:]
        }
        var all: [String] { lines.withLock { $0 } }
        /// `work` always succeeds; `flaky` fails until ``fixed``.
        var handlers: [String: @Sendable (StepContext) async throws -> JSONValue] {
            ["work": { try self.record($0, fails: false) }, "flaky": { try self.record($0, fails: true) }]
        }
    }

    /// Runs `blocks` until it fails, fixes the handlers, redrives, runs to the end; returns the
    /// calls after the redrive and the final state.
    func failThenRedrive(_ blocks: String, hooks: String = "") async throws -> (after: [String], calls: Calls, state: InstanceState) {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let calls = Calls()
        let engine = try await openEngine(db, clock: clock, handlers: calls.handlers)
        _ = try await engine.loadSequence(json: Array(#"{"name": "tc", "version": 1, "blocks": [\#(blocks)]\#(hooks)}"#.utf8))
        let id = try await engine.start("tc")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .failed)
        let before = calls.all.count
        calls.fixed.withLock { $0 = true }
        let letter = try #require(try await engine.deadLetters().items.first)
        try await engine.redrive(deadLetterId: letter.id)
        try await runToRest(engine, clock: clock)
        let state = try await engine.instance(id).state
        await engine.shutdown()
        return (Array(calls.all[before...]), calls, state)
    }

    @Test func aFailedCatchRunsAgainAloneTheCaughtTryStays() async throws {
        let (after, _, state) = try await failThenRedrive(#"""
            {"type": "try_catch", "id": "tc", "try_block": [{"type": "step", "id": "t1", "handler": "flaky"}],
             "catch_block": [{"type": "step", "id": "c1", "handler": "flaky"}]}
            """#)
        #expect(after == ["start c1#2", "end c1#2"])
        #expect(state == .completed)
    }

    @Test func aFailedTryRunsAgainThenFinallyOnceAfterIt() async throws {
        let (after, calls, state) = try await failThenRedrive(#"""
            {"type": "try_catch", "id": "tc", "try_block": [{"type": "step", "id": "t1", "handler": "flaky"}],
             "finally_block": [{"type": "step", "id": "f1", "handler": "flaky"}]},
            {"type": "step", "id": "after", "handler": "work"}
            """#)
        #expect(after == ["start t1#2", "end t1#2", "start f1#2", "end f1#2", "start after#1", "end after#1"])
        #expect(state == .completed)
        let keys = calls.keys.withLock { $0["f1"] ?? [] }
        #expect(keys.count == 2 && Set(keys).count == 2, "the finally step's new node has a new key: \(keys)")
    }

    @Test func aFailedFinallyAfterAHandledTryRunsAgainAlone() async throws {
        let (after, _, state) = try await failThenRedrive(#"""
            {"type": "try_catch", "id": "tc", "try_block": [{"type": "step", "id": "t1", "handler": "flaky"}],
             "catch_block": [{"type": "step", "id": "c1", "handler": "work"}],
             "finally_block": [{"type": "step", "id": "f1", "handler": "flaky"}]}
            """#)
        #expect(after == ["start f1#2", "end f1#2"])
        #expect(state == .completed)
    }

    @Test func aHookThatRunsAgainAfterARedriveHasNewKeys() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let calls = Calls()
        let engine = try await openEngine(db, clock: clock, handlers: calls.handlers)
        _ = try await engine.loadSequence(json: Array(#"""
            {"name": "hooked", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "flaky"}],
             "on_failure": [{"type": "step", "id": "notify", "handler": "work"}]}
            """#.utf8))
        let id = try await engine.start("hooked")
        try await runToRest(engine, clock: clock)
        let letter = try #require(try await engine.deadLetters().items.first)
        try await engine.redrive(deadLetterId: letter.id)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .failed)
        let keys = calls.keys.withLock { $0["notify"] ?? [] }
        #expect(keys.count == 2 && keys.last?.hasSuffix(":notify:_:2") == true, "\(keys)")
        await engine.shutdown()
    }

    /// §6.8: the redrive settles the instance's dead letters, whichever of them it went
    /// through; none is left unacknowledged to keep the completed instance from GC (§2.16).
    @Test func aRedriveThroughAnOlderLetterSettlesTheNewerOneToo() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let counter = Counter()
        let engine = try await openEngine(db, clock: clock, handlers: [
            "flaky": { context in
                counter.hit("flaky")
                if counter.count("flaky") <= 2 { throw StepError.permanent("not yet") }
                return [:]
            },
        ])
        _ = try await engine.loadSequence(json: Array(#"{"name": "twice", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "flaky"}]}"#.utf8))
        let id = try await engine.start("twice")
        try await runToRest(engine, clock: clock)
        let first = try #require(try await engine.deadLetters().items.first)
        try await engine.redrive(deadLetterId: first.id)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .failed)
        #expect(try await engine.deadLetters(unacknowledgedOnly: true).items.count == 1, "the second failure's letter")
        try await engine.redrive(deadLetterId: first.id)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        let letters = try await engine.deadLetters().items
        #expect(letters.count == 2 && letters.allSatisfy { $0.acknowledged && $0.redrivenAt != nil })
        await engine.shutdown()
    }
}

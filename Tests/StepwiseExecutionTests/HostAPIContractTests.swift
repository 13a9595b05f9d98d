import Foundation
import Stepwise
import Synchronization
import Testing

/// Host API rules of SEMANTICS §6 checked through the public API: messages, orders and what
/// open, pause and shutdown promise.
@Suite("Host API contract (SEMANTICS §6)")
struct HostAPIContractTests {
    @Test func completeStepOnAFinishedInstanceNamesTheStepAndItsState() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        let id = try await engine.start("approval")
        try await runToRest(engine, clock: clock)
        try await engine.completeStep(instanceId: id, stepId: "approve", output: ["value": "yes"])
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        let error = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: ["value": "yes"])
        }
        #expect(error?.code == .invalidState)
        #expect(error?.message == "step 'approve' of instance \(id) is not waiting (state: completed)")
        #expect(error?.context["instance_state"] == "completed")
        await engine.shutdown()
        // The same once the instance is only in the store.
        let reopened = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        let stored = await #expect(throws: StepwiseError.self) {
            try await reopened.completeStep(instanceId: id, stepId: "approve", output: ["value": "yes"])
        }
        #expect(stored?.message == "step 'approve' of instance \(id) is not waiting (state: completed)")
        await reopened.shutdown()
    }

    @Test func waitsAndCurrentStepFollowTreeOrderNotCreationOrder() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        let sequence = #"""
            {"name": "p", "version": 1, "blocks": [{"type": "parallel", "id": "both", "branches": [
              [{"type": "step", "id": "x", "handler": "work"},
               {"type": "step", "id": "a", "handler": "work", "wait_for_input": {"prompt": "A?"}}],
              [{"type": "step", "id": "b", "handler": "work", "wait_for_input": {"prompt": "B?"}}]
            ]}]}
            """#
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        let id = try await engine.start("p")
        try await runToRest(engine, clock: clock)
        let snapshot = try await engine.instance(id)
        // b's node was created (and its wait opened) before a's: tree order still puts a first.
        #expect(snapshot.waits.map(\.stepId) == ["a", "b"])
        #expect(snapshot.currentStep == "a")
        await engine.shutdown()
    }

    @Test func validateReportsProblemsUnderTheEngineLimitsAndStoresNothing() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        var configuration = EngineConfiguration.forTests
        configuration.maxSequenceSizeBytes = 200
        let engine = try await openEngine(db, clock: VirtualClock(), configuration: configuration)
        let valid = #"{"name": "v", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "not_registered"}]}"#
        #expect(try await engine.validate(json: Array(valid.utf8)).isEmpty, "handlers are not checked")
        let invalid = #"{"name": "v", "version": 1, "blocks": [{"type": "step", "id": "s"}]}"#
        #expect(try await engine.validate(json: Array(invalid.utf8)).map(\.code) == [.missingField])
        let large = Array(#"{"name": "v", "version": 1, "description": "\#(String(repeating: "x", count: 300))", "blocks": []}"#.utf8)
        #expect(try await engine.validate(json: large).map(\.code).contains(.tooLarge))
        #expect(await engine.loadedSequences().isEmpty)
        await engine.shutdown()
    }

    @Test func openingRunsGCBeforeTheFirstCall() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let (engine, configuration, done, stuck) = try await engineWithFinishedAndStuckInstances(db, clock: clock)
        await engine.shutdown()
        clock.advance(to: clock.now() + 120_000)
        let reopened = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
        // No tick has run: the first call already sees GC's work.
        let page = try await reopened.instances()
        #expect(!page.items.map(\.instanceId).contains(done), "finished longer ago than the lifetime: deleted")
        let snapshot = try await reopened.instance(stuck)
        #expect(snapshot.state == .failed)
        #expect(snapshot.error?.message == "lifetime exceeded")
        await reopened.shutdown()
    }

    @Test func theMemoryBudgetCountsThePayloadsOfCallsInFlight() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let gate = Gate()
        let big = String(repeating: "x", count: 3_000)
        let document = Array(#"{"name": "s", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "slow", "params": {"blob": "\#(big)"}}]}"#.utf8)
        var configuration = EngineConfiguration.forTests
        // Room for the compiled sequence and two small instances, not for a 3 KB call in flight.
        configuration.memoryBudgetBytes = UInt64(document.count + 500)
        let engine = try StepwiseEngine(databasePath: db.path, configuration: configuration, randomSeed: 3)
        await engine.registerHandler("slow") { _ in
            await gate.wait()
            return .null
        }
        _ = try await engine.loadSequence(json: document)
        _ = try await engine.start("s")
        await engine.resume()
        #expect(await eventually { gate.waiting })
        let refused = await #expect(throws: StepwiseError.self) { try await engine.start("s") }
        #expect(refused?.code == .resourceLimit)
        gate.open()
        await engine.shutdown()
    }

    @Test func afterPauseALateResultIsStillRecorded() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let gate = Gate()
        var configuration = EngineConfiguration.forTests
        configuration.maxTickDurationMs = 10
        let engine = try StepwiseEngine(databasePath: db.path, configuration: configuration, randomSeed: 3)
        await engine.registerHandler("slow") { _ in
            await gate.wait()
            return ["late": true]
        }
        _ = try await engine.loadSequence(json: Array(#"{"name": "s", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "slow"}, {"type": "step", "id": "t", "handler": "slow"}]}"#.utf8))
        let id = try await engine.start("s")
        await engine.resume()
        #expect(await eventually { gate.waiting })
        await engine.pause()
        #expect(try await engine.stepRuns(instanceId: id).first?.output == nil, "still in flight when pause returned")
        gate.open()
        #expect(await eventually { (try? await engine.stepRuns(instanceId: id).first?.output) == ["late": true] })
        // Recorded, and nothing dispatched while paused.
        #expect(try await engine.stepRuns(instanceId: id).count == 1)
        await engine.shutdown()
    }

    @Test func aTimedOutWaitIsAStepFailureForTheListenerAndTheHistory() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        let listener = RecordingListener()
        await engine.setListener(listener)
        let sequence = #"""
            {"name": "t", "version": 1, "blocks": [{"type": "try_catch", "id": "guard",
              "try_block": [{"type": "step", "id": "ask", "handler": "work", "wait_for_input": {"prompt": "Go?", "timeout": 1000}}],
              "catch_block": [{"type": "step", "id": "fallback", "handler": "work"}]}]}
            """#
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        let id = try await engine.start("t")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        #expect(await eventually { listener.all.contains("failed ask false") })
        let run = try #require(try await engine.stepRuns(instanceId: id).first { $0.stepId == "ask" })
        #expect(run.error == "wait_for_input on step 'ask' timed out after 1000 ms")
        #expect(run.errorCode == "timeout")
        await engine.shutdown()
    }

    @Test func badCursorsAndTheReservedIdAreRefused() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let engine = try await openEngine(db, clock: VirtualClock(), handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        let cursor = await #expect(throws: StepwiseError.self) { _ = try await engine.deadLetters(after: "no-such-letter") }
        #expect(cursor?.code == .invalidInput)
        var options = StartOptions()
        options.instanceId = InstanceID(rawValue: "00000000-0000-0000-0000-000000000000")
        let reserved = await #expect(throws: StepwiseError.self) { _ = try await engine.start("approval", options: options) }
        #expect(reserved?.code == .invalidInput)
        await engine.shutdown()
    }

    @Test func afterShutdownEveryThrowingCallThrowsShutdown() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        // A configured channel, so that a push would be recorded on an open engine.
        var configuration = EngineConfiguration.forTests
        configuration.syncUrl = "https://sync.example.com"
        let engine = try await openEngine(db, clock: VirtualClock(), configuration: configuration)
        let id = try #require(InstanceID(rawValue: "6f0c3a52-8a3e-4c1d-9a57-1d2b3c4d5e6f"))
        await engine.shutdown()
        let calls: [(String, () async throws -> Void)] = [
            ("childInstances", { _ = try await engine.childInstances(of: id) }),
            ("storedValue", { _ = try await engine.storedValue("k") }),
            ("storeValues", { try await engine.storeValues([("k", "v")]) }),
            ("deviceContext", { _ = try await engine.deviceContext() }),
            ("pendingTelemetry", { _ = try await engine.pendingTelemetry() }),
            ("outboxIsEmpty", { _ = try await engine.outboxIsEmpty() }),
            ("validate", { _ = try await engine.validate(json: Array("{}".utf8)) }),
            ("runUntilIdle with a zero budget", { _ = try await engine.runUntilIdle(maxTicks: 0, timeBudgetMs: 0) }),
        ]
        for (name, call) in calls {
            let error = await #expect(throws: StepwiseError.self, "\(name)") { try await call() }
            #expect(error?.code == .shutdown, "\(name)")
        }
        // The calls that cannot throw write nothing once the store is closed.
        await engine.onPushReceived()
        await engine.reportPowerState(.charging)
        await engine.reportNetworkState(.offline)
        await engine.registerHandler("late") { _ in .null }
        let reopened = try await openEngine(db, clock: VirtualClock())
        #expect(try await reopened.storedValue("sync.push_count") == nil)
        await reopened.shutdown()
    }
}

/// A handler's wait, opened by the test.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    var waiting: Bool { state.withLock { !$0.waiters.isEmpty } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// SYNC.md §4: telemetry is "recorded (when telemetryEnabled)": events of a run with it off are
/// never sent, also after a later run turns it on; events recorded with it on are kept.
@Suite("Telemetry only for runs with telemetryEnabled")
struct TelemetrySettingTests {
    static let quick = #"{"name": "q", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "work"}]}"#

    func run(_ db: TemporaryDatabase, telemetry: Bool, inputTag: String) async throws -> (StepwiseEngine, InstanceID) {
        var configuration = EngineConfiguration.forTests
        configuration.telemetryEnabled = telemetry
        let clock = VirtualClock()
        let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(Self.quick.utf8))
        let id = try await engine.start("q", input: ["tag": .string(inputTag)])
        try await runToRest(engine, clock: clock)
        return (engine, id)
    }

    func instanceIDs(in batch: TelemetryBatch) -> Set<String> {
        Set(batch.events.compactMap { event in
            event["payload"]?.stringValue.flatMap { try? JSONParser.parse($0) }?["instance_id"]?.stringValue
        })
    }

    @Test func eventsOfARunWithTelemetryOffAreNeverSent() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let (first, sent) = try await run(db, telemetry: true, inputTag: "on")
        await first.shutdown()
        let (second, hidden) = try await run(db, telemetry: false, inputTag: "off")
        #expect(try await second.pendingTelemetry().events.isEmpty)
        await second.shutdown()
        let (third, later) = try await run(db, telemetry: true, inputTag: "on again")
        let batch = try await third.pendingTelemetry()
        let ids = instanceIDs(in: batch)
        #expect(ids.contains(sent.rawValue), "recorded while on, not sent yet: kept")
        #expect(!ids.contains(hidden.rawValue), "recorded while off: never sent")
        #expect(ids.contains(later.rawValue))
        try await third.confirmTelemetry(through: batch.throughSequence)
        #expect(try await third.pendingTelemetry().events.isEmpty)
        await third.shutdown()
    }

    /// A long run with telemetry off (more journal entries than one read takes) must not hide
    /// the events recorded after it; and the 1000-event cap counts every pending event.
    @Test func eventsAfterALongRunWithTelemetryOffAreSentAndTheCapCountsThemAll() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let looping = #"""
            {"name": "many", "version": 1, "blocks": [{"type": "loop", "id": "l", "condition": "true", "max_iterations": 1800,
              "body": [{"type": "step", "id": "s", "handler": "work"}]}]}
            """#
        for telemetry in [false, true] {
            var configuration = EngineConfiguration.forTests
            configuration.telemetryEnabled = telemetry
            configuration.maxStepsPerInstance = 0
            let clock = VirtualClock()
            let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
            _ = try await engine.loadSequence(json: Array(looping.utf8))
            _ = try await engine.start("many")
            try await runToRest(engine, clock: clock, maxRounds: 2_000)
            if telemetry {
                // 1800 steps: instance_started, 1800 × (step_started, step_completed),
                // instance_completed: 3602 events, each one that took the buffer over 1000
                // cutting it to 900: 976 are left (900 + (3602 - 1001) mod 101).
                let batch = try await engine.pendingTelemetry(limit: 500)
                #expect(batch.events.count == 500)
                #expect(batch.remaining == 476)
                #expect(batch.events.last?["event_type"] == "step_completed" || batch.events.last?["event_type"] == "step_started")
                try await engine.confirmTelemetry(through: batch.throughSequence)
                let rest = try await engine.pendingTelemetry(limit: 500)
                #expect(rest.events.count == 476 && rest.remaining == 0)
                #expect(rest.events.last?["event_type"] == "instance_completed")
            } else {
                #expect(try await engine.pendingTelemetry().events.isEmpty)
            }
            await engine.shutdown()
        }
    }

    /// SYNC.md §4: "≤ 1000 rows; beyond, the oldest are deleted down to 900" — when they are
    /// written, whether or not the buffer is read; a batch read before the cut does not bring
    /// the dropped events back when it is confirmed.
    @Test func theBufferIsCutWhenAnEventTakesItOverTheCap() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        var configuration = EngineConfiguration()
        configuration.maxConcurrentInstances = 1_000
        let clock = VirtualClock()
        let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(Self.quick.utf8))
        // 4 events an instance: 1000, the cap.
        for _ in 0..<250 { _ = try await engine.start("q") }
        try await runToRest(engine, clock: clock)
        let early = try await engine.pendingTelemetry(limit: 50)
        #expect(early.events.count == 50 && early.remaining == 950)
        // 4 more: the first takes the buffer to 1001, cut to 900 (the oldest 101 go, the 50
        // read among them); 903 are left.
        _ = try await engine.start("q")
        try await runToRest(engine, clock: clock)
        try await engine.confirmTelemetry(through: early.throughSequence)
        let rest = try await engine.pendingTelemetry(limit: 1_000)
        #expect(rest.events.count == 903 && rest.remaining == 0)
        await engine.shutdown()
    }
}

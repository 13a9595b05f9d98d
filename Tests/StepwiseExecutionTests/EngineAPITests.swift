import Foundation
import Stepwise
import Testing

@Suite("Engine API through the public module")
struct EngineAPITests {
    @Test func anInstanceIdAlreadyUsedIsAConflictLiveOrStored() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let id = InstanceID(rawValue: "00000000-0000-4000-8000-00000000abcd")!
        do {
            let engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
            _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
            #expect(try await engine.start("approval", options: StartOptions(instanceId: id)) == id)
            let live = await #expect(throws: StepwiseError.self) {
                try await engine.start("approval", options: StartOptions(instanceId: id))
            }
            #expect(live?.code == .conflict)
            #expect(live?.message == "instance \(id) already exists")
            try await engine.cancelInstance(id)
            try await runToRest(engine, clock: clock)
            await engine.shutdown()
        }
        // Reopened, the finished instance is only in the store.
        let engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        let stored = await #expect(throws: StepwiseError.self) {
            try await engine.start("approval", options: StartOptions(instanceId: id))
        }
        #expect(stored?.code == .conflict)
        #expect(try await engine.instance(id).state == .cancelled)
        let other = InstanceID(rawValue: "00000000-0000-4000-8000-00000000abce")!
        #expect(try await engine.start("approval", options: StartOptions(instanceId: other)) == other)
        await engine.shutdown()
    }

    @Test func startRunWaitCompleteAndFinish() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let engine = try await openEngine(db, clock: clock, handlers: ["work": { ctx in ["step": .string(ctx.stepId)] }])
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        let id = try await engine.start("approval", input: ["user": "ada"])
        try await runToRest(engine, clock: clock)
        var snapshot = try await engine.instance(id)
        #expect(snapshot.state == .waiting)
        #expect(snapshot.currentStep == "approve")
        #expect(snapshot.waits.map(\.stepId) == ["approve"])
        #expect(snapshot.waitingReasons == ["step 'approve' waits for input"])
        let pending = try await engine.pendingWaits()
        #expect(pending.first?.choices?.map(\.value) == ["yes", "no"])

        let rejected = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: ["value": "maybe"])
        }
        #expect(rejected?.code == .invalidInput)
        #expect(rejected?.message == "value 'maybe' is not one of the choices: yes, no")
        let notWaiting = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "finish", output: ["value": "x"])
        }
        #expect(notWaiting?.code == .invalidState)
        #expect(notWaiting?.message == "step 'finish' of instance \(id) is not waiting (state: pending)")
        let notObject = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: "yes")
        }
        #expect(notObject?.code == .invalidInput)

        try await engine.completeStep(instanceId: id, stepId: "approve", output: ["value": "yes"])
        try await runToRest(engine, clock: clock)
        snapshot = try await engine.instance(id)
        #expect(snapshot.state == .completed)
        #expect(snapshot.data["decision"] == "yes")
        #expect(snapshot.data["prepare"] == ["step": "prepare"])
        #expect(snapshot.outputs["finish"] == ["step": "finish"])
        let runs = try await engine.stepRuns(instanceId: id)
        #expect(runs.map(\.stepId) == ["prepare", "approve", "finish"])
        #expect(runs[1].completionPayload == ["value": "yes"])
        #expect(runs[0].idempotencyKey == "\(id):prepare:_:1")
        await engine.shutdown()
    }

    @Test func startErrors() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        var configuration = EngineConfiguration.forTests
        configuration.maxConcurrentInstances = 1
        let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))

        let missing = await #expect(throws: StepwiseError.self) { try await engine.start("nope") }
        #expect(missing?.code == .notFound)
        let badInput = await #expect(throws: StepwiseError.self) { try await engine.start("approval", input: [1, 2]) }
        #expect(badInput?.code == .invalidInput)

        let fixed = InstanceID(rawValue: "00000000-0000-0000-0000-0000000000AA")!
        let first = try await engine.start("approval", dedupKey: "user:1", options: StartOptions(instanceId: fixed))
        #expect(first.rawValue == "00000000-0000-0000-0000-0000000000aa")
        #expect(try await engine.start("approval", dedupKey: "user:1") == first)
        let limited = await #expect(throws: StepwiseError.self) { try await engine.start("approval") }
        #expect(limited?.code == .resourceLimit)
        try await engine.cancelInstance(first)
        let conflict = await #expect(throws: StepwiseError.self) {
            try await engine.start("approval", options: StartOptions(instanceId: fixed))
        }
        #expect(conflict?.code == .conflict)
        // The dedup key was released by the cancellation.
        let second = try await engine.start("approval", dedupKey: "user:1")
        #expect(second != first)
        let terminal = await #expect(throws: StepwiseError.self) { try await engine.cancelInstance(first) }
        #expect(terminal?.code == .invalidState)

        let unregistered = #"{"name": "other", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "ghost"}]}"#
        let loadError = await #expect(throws: StepwiseError.self) { try await engine.loadSequence(json: Array(unregistered.utf8)) }
        #expect(loadError?.code == .unregisteredHandler)
        #expect(loadError?.message.contains("ghost") == true)
        let invalid = await #expect(throws: StepwiseError.self) {
            try await engine.loadSequence(json: Array(#"{"name": "x", "version": 1, "blocks": []}"#.utf8))
        }
        #expect(invalid?.code == .sequenceInvalid)
        #expect(invalid?.message.contains("/blocks: empty_blocks: sequence has no blocks") == true)
        await engine.shutdown()
        let afterShutdown = await #expect(throws: StepwiseError.self) { try await engine.start("approval") }
        #expect(afterShutdown?.code == .shutdown)
    }

    @Test func identicalReloadIsANoOpAndDifferentBytesConflict() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let engine = try await openEngine(db, clock: VirtualClock(), handlers: ["work": { _ in [:] }])
        let first = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        #expect(first.isNew)
        let again = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        #expect(!again.isNew)
        let changed = approvalSequence.replacingOccurrences(of: "Approve?", with: "Really?")
        let conflict = await #expect(throws: StepwiseError.self) { try await engine.loadSequence(json: Array(changed.utf8)) }
        #expect(conflict?.code == .conflict)
        await engine.shutdown()
    }

    @Test func signals() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        let id = try await engine.start("approval")
        try await engine.sendSignal(instanceId: id, type: "pause")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .paused)
        try await engine.sendSignal(instanceId: id, type: "update_context", payload: ["data": ["tier": "pro"]])
        try await engine.sendSignal(instanceId: id, type: "resume")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .waiting)
        try await engine.sendSignal(instanceId: id, type: "human_input:approve", payload: ["value": "no"])
        try await runToRest(engine, clock: clock)
        let snapshot = try await engine.instance(id)
        #expect(snapshot.state == .completed)
        #expect(snapshot.data["tier"] == "pro" && snapshot.data["decision"] == "no")
        // An unknown type on a live instance (a finished one is invalidState first, §2.12).
        let live = try await engine.start("approval")
        let unknown = await #expect(throws: StepwiseError.self) { try await engine.sendSignal(instanceId: live, type: "poke") }
        #expect(unknown?.code == .invalidInput)
        await engine.shutdown()
    }

    @Test func listingAndPaging() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        var configuration = EngineConfiguration.forTests
        configuration.maxConcurrentInstances = 100
        let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        var ids: Set<InstanceID> = []
        for i in 0..<7 {
            clock.advance(to: Int64(i) * 10)
            ids.insert(try await engine.start("approval"))
        }
        var seen: [InstanceID] = []
        var cursor: String?
        repeat {
            let page = try await engine.instances(limit: 3, after: cursor)
            seen += page.items.map(\.instanceId)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen.count == 7 && Set(seen) == ids)
        let active = try await engine.activeInstances()
        #expect(active.count == 7)
        let badLimit = await #expect(throws: StepwiseError.self) { try await engine.instances(limit: 0) }
        #expect(badLimit?.code == .invalidInput)
        await engine.shutdown()
    }

    @Test func stringHandlerGetsDataMergedWithParams() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let engine = try await openEngine(db, clock: clock)
        await engine.registerHandler("greet", stringHandler: { name, input in
            #"{"seen": "\#(name)", "input": \#(input)}"#
        })
        let sequence = #"{"name": "g", "version": 1, "blocks": [{"type": "step", "id": "hello", "handler": "greet", "params": {"who": "{{ data.user }}"}}]}"#
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        let id = try await engine.start("g", input: ["user": "ada", "who": "nobody"])
        try await runToRest(engine, clock: clock)
        let output = try await engine.instance(id).outputs["hello"]
        #expect(output?["seen"] == "hello")
        #expect(output?["input"] == ["user": "ada", "who": "ada"])
        await engine.shutdown()
    }
}

/// SEMANTICS §2.12 `pause`: "timers keep deadlines and fire on resume if due", and §2.1: "a
/// paused instance stays `paused` until resumed, even with handlers finishing".
@Suite struct PauseSignalTests {
    static let delayed = #"""
        {"name": "delayed", "version": 1, "blocks": [
          {"type": "step", "id": "wait", "handler": "work", "delay": {"duration": 1000}},
          {"type": "step", "id": "after", "handler": "work"}
        ]}
        """#

    static let lastWait = #"""
        {"name": "last-wait", "version": 1, "blocks": [
          {"type": "step", "id": "ask", "handler": "work", "wait_for_input": {"prompt": "OK?"}}
        ]}
        """#

    @Test func aTimerThatComesDueWhilePausedFiresOnResume() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let calls = Counter()
        let engine = try await openEngine(db, clock: clock, handlers: ["work": { context in calls.hit(context.stepId); return [:] }])
        _ = try await engine.loadSequence(json: Array(Self.delayed.utf8))
        let id = try await engine.start("delayed")
        try await engine.sendSignal(instanceId: id, type: "pause")
        clock.advance(to: 5_000)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .paused)
        #expect(calls.count("wait") == 0)

        try await engine.sendSignal(instanceId: id, type: "resume")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        #expect(calls.count("wait") == 1 && calls.count("after") == 1)
        await engine.shutdown()
    }

    @Test func anInstanceWhoseLastWaitIsAnsweredWhilePausedCompletesOnlyOnResume() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let listener = RecordingListener()
        var engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        await engine.setListener(listener)
        _ = try await engine.loadSequence(json: Array(Self.lastWait.utf8))
        let id = try await engine.start("last-wait")
        try await runToRest(engine, clock: clock)
        try await engine.sendSignal(instanceId: id, type: "pause")
        try await engine.completeStep(instanceId: id, stepId: "ask", output: ["value": "yes"])
        try await runToRest(engine, clock: clock)
        let held = try await engine.instance(id)
        #expect(held.state == .paused)
        #expect(held.waits.isEmpty, "the answer is recorded")
        #expect(!listener.all.contains("completed"))

        // Held across a restart too: the outcome is persisted on the root node.
        await engine.shutdown()
        engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        await engine.setListener(listener)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .paused)

        try await engine.sendSignal(instanceId: id, type: "resume")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        #expect(await eventually { listener.all.contains("completed") })
        await engine.shutdown()
    }

    @Test func cancellingAPausedInstanceWhoseWorkIsDoneCancelsIt() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(Self.lastWait.utf8))
        let id = try await engine.start("last-wait")
        try await runToRest(engine, clock: clock)
        try await engine.sendSignal(instanceId: id, type: "pause")
        try await engine.completeStep(instanceId: id, stepId: "ask", output: ["value": "yes"])
        try await engine.sendSignal(instanceId: id, type: "cancel")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .cancelled)
        await engine.shutdown()
    }

    @Test func pauseAndResumeCoverSubSequenceChildren() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let calls = Counter()
        let engine = try await openEngine(db, clock: clock, handlers: ["work": { context in calls.hit(context.stepId); return [:] }])
        let child = #"""
            {"name": "child", "version": 1, "blocks": [
              {"type": "step", "id": "confirm", "handler": "work", "wait_for_input": {"prompt": "OK?"}},
              {"type": "step", "id": "after", "handler": "work"}
            ]}
            """#
        let parent = #"""
            {"name": "parent", "version": 1, "blocks": [
              {"type": "step", "id": "ask", "handler": "work", "wait_for_input": {"prompt": "Go?"}},
              {"type": "sub_sequence", "id": "sub", "sequence_name": "child"}
            ]}
            """#
        _ = try await engine.loadSequence(json: Array(child.utf8))
        _ = try await engine.loadSequence(json: Array(parent.utf8))
        let id = try await engine.start("parent")
        try await runToRest(engine, clock: clock)

        // A child started while its parent is paused starts paused: nothing of it runs.
        try await engine.sendSignal(instanceId: id, type: "pause")
        try await engine.completeStep(instanceId: id, stepId: "ask", output: ["value": "go"])
        try await runToRest(engine, clock: clock)
        let childID = try #require(try await engine.childInstances(of: id).first)
        #expect(try await engine.instance(childID).state == .paused)
        #expect(calls.count("confirm") == 0)

        try await engine.sendSignal(instanceId: id, type: "resume")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(childID).state == .waiting)

        // Pausing the parent pauses the running child too; resuming resumes both.
        try await engine.sendSignal(instanceId: id, type: "pause")
        #expect(try await engine.instance(childID).state == .paused)
        try await engine.completeStep(instanceId: childID, stepId: "confirm", output: ["value": "ok"])
        try await runToRest(engine, clock: clock)
        #expect(calls.count("after") == 0)
        try await engine.sendSignal(instanceId: id, type: "resume")
        try await runToRest(engine, clock: clock)
        #expect(calls.count("after") == 1)
        #expect(try await engine.instance(id).state == .completed)
        await engine.shutdown()
    }

    @Test func aHumanInputSignalNeedsAnUnfinishedInstanceEvenWhileItsHooksWait() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock()
        let engine = try await openEngine(db, clock: clock, handlers: [
            "work": { _ in [:] }, "boom": { _ in throw StepError.permanent("boom") },
        ])
        let sequence = #"""
            {"name": "hooked", "version": 1,
             "blocks": [{"type": "step", "id": "main", "handler": "boom"}],
             "on_failure": [{"type": "step", "id": "confirm", "handler": "work", "wait_for_input": {"prompt": "Seen?"}}]}
            """#
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        let id = try await engine.start("hooked")
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .failed)
        let refused = await #expect(throws: StepwiseError.self) {
            try await engine.sendSignal(instanceId: id, type: "human_input:confirm", payload: ["value": "ok"])
        }
        #expect(refused?.code == .invalidState)
        // completeStep still answers the hook's wait (SEMANTICS §2.11).
        try await engine.completeStep(instanceId: id, stepId: "confirm", output: ["value": "ok"])
        await engine.shutdown()
    }
}

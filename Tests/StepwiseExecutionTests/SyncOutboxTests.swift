import Foundation
import Stepwise
import Testing

@Suite("Sync outbox and exactly-once server commands (SYNC.md §2.2–2.7)")
struct SyncOutboxTests {
    static var configuration: EngineConfiguration {
        var c = EngineConfiguration()
        c.syncUrl = "https://sync.example/mobile/sync"
        c.environment = "test"
        return c
    }

    func setUp(_ db: TemporaryDatabase, clock: VirtualClock, counter: Counter = Counter()) async throws -> StepwiseEngine {
        let engine = try await openEngine(
            db, clock: clock, configuration: Self.configuration,
            handlers: ["work": { ctx in counter.hit(ctx.stepId); return [:] }])
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        return engine
    }

    @Test func statusAndApprovalRowsThenDeliveryConfirmation() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await setUp(db, clock: clock)
        let id = try await engine.start("approval")
        try await runToRest(engine, clock: clock)
        let draft = try await engine.draftSyncRequest(deviceID: "device-1")
        let body = draft.body
        #expect(body["device_id"] == "device-1" && body["environment"] == "test")
        let status = try #require(body["status_updates"]?[0])
        #expect(status["instance_id"] == .string(id.rawValue))
        #expect(status["state"] == "Waiting" && status["current_step"] == "approve" && status["handler"] == "work")
        #expect(status["steps"]?.arrayValue?.map { $0["state"] ?? .null } == ["completed", "waiting", "pending"])
        let approval = try #require(body["approval_requests"]?[0])
        #expect(approval["block_id"] == "approve" && approval["store_as"] == "decision" && approval["timeout_seconds"] == .null)
        #expect(approval["choices"]?[1] == ["label": "No", "value": "no"])
        #expect(body["command_acks"] == [] && body["step_delegations"] == [])
        try await engine.confirmSyncDelivery(draft.sent)
        let empty = try await engine.draftSyncRequest(deviceID: "device-1")
        #expect(empty.sent.isEmpty && empty.body["status_updates"] == [])
        await engine.shutdown()
    }

    /// A request carries about 2 MiB of statuses at most: statuses of large sequences (one
    /// entry per block) go over several requests instead of one a server would refuse.
    @Test func statusesOfLargeSequencesAreSpreadOverRequests() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await setUp(db, clock: clock)
        let filler = (0..<4_000).map { #"{"type": "step", "id": "step-with-a-longer-name-\#($0)", "handler": "work"}"# }
        let big = #"{"name": "big", "version": 1, "blocks": [{"type": "step", "id": "ask", "handler": "work", "wait_for_input": {"prompt": "Go?"}}, "#
            + filler.joined(separator: ", ") + "]}"
        _ = try await engine.loadSequence(json: Array(big.utf8))
        for _ in 0..<4 { _ = try await engine.start("big") }
        try await runToRest(engine, clock: clock)
        var statuses = 0
        var requests = 0
        while true {
            let draft = try await engine.draftSyncRequest(deviceID: "device-1")
            let size = JSONWriter.bytes(draft.body).count
            #expect(size < 3 << 20, "request \(requests) is \(size) bytes")
            statuses += draft.body["status_updates"]?.arrayValue?.count ?? 0
            requests += 1
            try await engine.confirmSyncDelivery(draft.sent)
            if !draft.hasMore || requests > 10 { break }
        }
        #expect(statuses == 4)
        #expect(requests >= 2)
        await engine.shutdown()
    }

    /// SYNC.md §2.3: in a loop body the status shows the latest iteration's nodes; a block
    /// that iteration has not reached is `pending`, not the previous pass's `completed`.
    @Test func statusStepsShowTheLatestIterationOfALoop() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await setUp(db, clock: clock)
        _ = try await engine.loadSequence(json: Array(#"""
            {"name": "looped", "version": 1, "blocks": [{"type": "loop", "id": "l", "condition": "outputs.l._iterations < 2",
              "body": [{"type": "step", "id": "ask", "handler": "work", "wait_for_input": {"prompt": "?"}},
                       {"type": "step", "id": "after", "handler": "work"}]}]}
            """#.utf8))
        let id = try await engine.start("looped")
        try await runToRest(engine, clock: clock)
        try await engine.completeStep(instanceId: id, stepId: "ask", output: ["value": 1])
        try await runToRest(engine, clock: clock)
        let draft = try await engine.draftSyncRequest(deviceID: "device-1")
        let status = try #require(draft.body["status_updates"]?.arrayValue?.first { $0["instance_id"] == .string(id.rawValue) })
        let states = (status["steps"]?.arrayValue ?? []).map { "\($0["block_id"]?.stringValue ?? ""):\($0["state"]?.stringValue ?? "")" }
        #expect(states == ["l:running", "ask:waiting", "after:pending"], "\(states)")
        await engine.shutdown()
    }

    @Test func commandsRunExactlyOnceAcrossRestarts() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let counter = Counter()
        var engine = try await setUp(db, clock: clock, counter: counter)
        let id = try await engine.start("approval")
        try await runToRest(engine, clock: clock)
        // The seed documents' flat form, with output as JSON text.
        let command: JSONValue = [
            "id": "c7", "type": "complete_step", "instance_id": .string(id.rawValue), "step_name": "approve",
            "output": #"{"value":"yes"}"#,
        ]
        let outcome = await engine.executeSyncCommand(command)
        #expect(outcome.kind == .done)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        await engine.shutdown()

        engine = try await setUp(db, clock: clock, counter: counter)
        let again = await engine.executeSyncCommand(command)
        #expect(again.kind == .done, "a re-delivered command is acknowledged, not re-executed")
        let draft = try await engine.draftSyncRequest(deviceID: "d")
        #expect(draft.body["command_acks"] == ["c7"])
        #expect(draft.body["command_results"]?[0]?["outcome"] == "done")
        #expect(counter.count("finish") == 1)
        await engine.shutdown()
    }

    @Test func rejectionsAndRetries() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await setUp(db, clock: clock)
        let id = try await engine.start("approval")
        try await runToRest(engine, clock: clock)
        let bad = await engine.executeSyncCommand([
            "id": "c1", "type": "complete_step",
            "payload": ["instance_id": .string(id.rawValue), "step_name": "approve", "output": ["value": "maybe"]],
        ])
        #expect(bad.kind == .rejected && bad.error == "value 'maybe' is not one of the choices: yes, no")
        let unknown = await engine.executeSyncCommand(["id": "c2", "type": "explode", "payload": [:]])
        #expect(unknown.kind == .rejected && unknown.error == "unknown command type 'explode'")
        let notInstalled = await engine.executeSyncCommand([
            "id": "c3", "type": "start_workflow", "payload": ["sequence_name": "later"],
        ])
        #expect(notInstalled.kind == .retry)
        let skipped = await engine.executeSyncCommand(["type": "cancel_instance"])
        #expect(skipped.kind == .skipped)
        let draft = try await engine.draftSyncRequest(deviceID: "d")
        let results = draft.body["command_results"]?.arrayValue ?? []
        #expect(Set(results.compactMap { $0["id"]?.stringValue }) == ["c1", "c2"])
        #expect(try await engine.instance(id).state == .waiting, "a rejected command changes nothing")
        let started = await engine.executeSyncCommand([
            "id": "c4", "type": "start_workflow",
            "payload": ["sequence_name": "approval", "input": #"{"user": "bo"}"#, "dedup_key": "bo"],
        ])
        #expect(started.kind == .done && started.instanceId != nil)
        #expect(try await engine.instance(started.instanceId!).data["user"] == "bo")
        await engine.shutdown()
    }

    @Test(arguments: ["restart", "cancel", "fail", "graceful", "skip_executed"])
    func updateSequencePolicies(policy: String) async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let counter = Counter()
        let engine = try await setUp(db, clock: clock, counter: counter)
        let id = try await engine.start("approval", input: ["user": "ada"])
        try await runToRest(engine, clock: clock)
        let outcome = await engine.executeSyncCommand([
            "id": "u1", "type": "update_sequence", "payload": ["instance_id": .string(id.rawValue), "policy": .string(policy)],
        ])
        #expect(outcome.kind == .done, "\(outcome)")
        try await runToRest(engine, clock: clock)
        let old = try await engine.instance(id)
        let all = try await engine.instances().items
        switch policy {
        case "restart", "skip_executed":
            #expect(old.state == .cancelled)
            let new = try #require(all.first { $0.instanceId != id })
            #expect(new.state == .waiting)
            let snapshot = try await engine.instance(new.instanceId)
            #expect(snapshot.data["user"] == "ada")
            // skip_executed: the completed step is not run again.
            #expect(counter.count("prepare") == (policy == "restart" ? 2 : 1))
        case "cancel":
            #expect(old.state == .cancelled && all.count == 1)
        case "fail":
            #expect(old.state == .failed && old.error?.message == "failed by server command")
        default:
            // graceful: the old instance finishes on its version first.
            #expect(old.state == .waiting && all.count == 1)
            try await engine.completeStep(instanceId: id, stepId: "approve", output: ["value": "yes"])
            try await runToRest(engine, clock: clock)
            let after = try await engine.instances().items
            #expect(after.count == 2)
            #expect(after.contains { $0.instanceId != id && $0.state == .waiting })
        }
        await engine.shutdown()
    }
}

/// `update_sequence`'s default input and malformed payloads (SYNC.md §2.6, §2.7).
@Suite("update_sequence input and malformed command payloads")
struct CommandPayloadTests {
    @Test func restartDefaultsToTheOriginalInputOfAnInstanceStartedBeforeSyncWasConfigured() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let handlers: [String: @Sendable (StepContext) async throws -> JSONValue] = ["work": { _ in ["done": true] }]
        var engine = try await openEngine(db, clock: clock, handlers: handlers)
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        let id = try await engine.start("approval", input: ["user": "abc"])
        try await runToRest(engine, clock: clock)
        await engine.shutdown()

        engine = try await openEngine(db, clock: clock, configuration: SyncOutboxTests.configuration, handlers: handlers)
        let outcome = await engine.executeSyncCommand([
            "id": "u1", "type": "update_sequence", "payload": ["instance_id": .string(id.rawValue), "policy": "restart"],
        ])
        #expect(outcome.kind == .done, "\(outcome)")
        let started = try #require(outcome.instanceId)
        #expect(try await engine.instance(started).data["user"] == "abc")
        #expect(try await engine.instance(started).data["prepare"] == nil, "the input, not the old instance's data")
        await engine.shutdown()
    }

    @Test(arguments: [
        (#"{"type": "complete_step", "payload": {"instance_id": "$ID", "step_name": "approve"}}"#,
         "complete_step needs output (an object or JSON text)"),
        (#"{"type": "step_result", "payload": {"request_id": "r", "instance_id": "$ID", "block_id": "approve"}}"#,
         "step_result needs success (true or false)"),
        (#"{"type": "step_result", "payload": {"request_id": "r", "instance_id": "$ID", "block_id": "approve", "success": true}}"#,
         "step_result with success true needs resolved_params"),
        (#"{"type": "update_sequence", "payload": {"instance_id": "$ID", "version": "2"}}"#, "update_sequence version must be an integer"),
        (#"{"type": "update_sequence", "payload": {"instance_id": "$ID", "policy": 3}}"#, "update_sequence policy must be a string"),
        (#"{"type": "update_sequence", "payload": {"instance_id": "$ID", "input": [1]}}"#,
         "update_sequence input must be an object or JSON text"),
        // Wrong types are malformed, never read as absent (SYNC.md §2.6).
        (#"{"type": "start_workflow", "payload": {"sequence_name": "approval", "dedup_key": 123}}"#,
         "start_workflow: dedup_key must be a string, got integer"),
        (#"{"type": "start_workflow", "payload": {"sequence_name": "approval", "instance_id": 42}}"#,
         "start_workflow: instance_id must be a string, got integer"),
        (#"{"type": "complete_step", "payload": {"instance_id": "$ID", "step_name": "approve", "output": {}, "wait_id": 7}}"#,
         "complete_step: wait_id must be a string, got integer"),
    ])
    func malformedPayloadsAreRejected(command: String, message: String) async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await openEngine(db, clock: clock, configuration: SyncOutboxTests.configuration, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        let id = try await engine.start("approval")
        try await runToRest(engine, clock: clock)
        var json = try JSONParser.parse(command.replacingOccurrences(of: "$ID", with: id.rawValue)).objectValue ?? [:]
        json["id"] = "m1"
        let outcome = await engine.executeSyncCommand(.object(json))
        #expect(outcome.kind == .rejected)
        #expect(outcome.error == message)
        #expect(try await engine.instance(id).state == .waiting, "nothing changed")
        await engine.shutdown()
    }
}

/// A `graceful` follow-up whose sequence is gone when its instance ends is owed, not dropped.
@Suite("graceful update_sequence: the follow-up waits for its sequence")
struct GracefulFollowUpTests {
    static func next(_ version: Int) -> [UInt8] {
        Array(#"{"name": "next", "version": \#(version), "blocks": [{"type": "step", "id": "n", "handler": "work"}]}"#.utf8)
    }

    static let handlers: [String: @Sendable (StepContext) async throws -> JSONValue] = ["work": { _ in [:] }]

    /// An engine with a sync channel, an `approval` instance waiting for its answer, and a
    /// `graceful` update of it to `next` accepted (`done`).
    static func instanceWithAGracefulUpdate(_ db: TemporaryDatabase, clock: VirtualClock) async throws -> (StepwiseEngine, InstanceID) {
        let engine = try await openEngine(db, clock: clock, configuration: SyncOutboxTests.configuration, handlers: handlers)
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        _ = try await engine.loadSequence(json: next(1))
        let id = try await engine.start("approval")
        try await runToRest(engine, clock: clock)
        let outcome = await engine.executeSyncCommand([
            "id": "g1", "type": "update_sequence",
            "payload": ["instance_id": .string(id.rawValue), "policy": "graceful", "sequence_name": "next"],
        ])
        #expect(outcome.kind == .done, "\(outcome)")
        return (engine, id)
    }

    @Test func aFollowUpWhoseSequenceIsGoneStartsWhenAVersionIsInstalledAfterARestart() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let handlers = Self.handlers
        var (engine, id) = try await Self.instanceWithAGracefulUpdate(db, clock: clock)
        // The server retires every version of `next` before the instance ends.
        try await engine.retireVersion(SequenceKey(name: "next", version: 1))
        try await engine.completeStep(instanceId: id, stepId: "approve", output: ["value": "yes"])
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        #expect(try await engine.instances().items.count == 1, "nothing to start yet")
        await engine.shutdown()

        // Still owed after a restart; installing a version of `next` starts it.
        engine = try await openEngine(db, clock: clock, configuration: SyncOutboxTests.configuration, handlers: handlers)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instances().items.count == 1)
        _ = try await engine.loadSequence(json: Self.next(2))
        try await runToRest(engine, clock: clock)
        let started = try await engine.instances().items.filter { $0.instanceId != id }
        #expect(started.map(\.sequenceName) == ["next"])
        #expect(started.map(\.sequenceVersion) == [2])
        #expect(started.first?.state == .completed)
        // Started once: another install starts nothing more.
        _ = try await engine.loadSequence(json: Self.next(3))
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instances().items.count == 2)
        await engine.shutdown()
    }

    @Test func theFollowUpStartsWhenTheInstanceEndsUnderAnEngineWithoutAChannel() async throws {
        // The command arrives in a sync; the instance ends later under `stepwise resume`, whose
        // engine has no channel: the follow-up is still started, once.
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        var (engine, id) = try await Self.instanceWithAGracefulUpdate(db, clock: clock)
        await engine.shutdown()

        engine = try await openEngine(db, clock: clock, configuration: EngineConfiguration(), handlers: Self.handlers)
        try await engine.completeStep(instanceId: id, stepId: "approve", output: ["value": "yes"])
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        let started = try await engine.instances().items.filter { $0.instanceId != id }
        #expect(started.map(\.sequenceName) == ["next"])
        #expect(started.first?.state == .completed)
        await engine.shutdown()
    }
}

@Suite("Exactly-once server commands: one transaction per outcome (SYNC.md §2.6)")
struct SyncCommandAtomicityTests {
    func setUp(_ db: TemporaryDatabase, clock: VirtualClock, configuration: EngineConfiguration = SyncOutboxTests.configuration)
        async throws -> StepwiseEngine
    {
        let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
        _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
        return engine
    }

    @Test func startWorkflowOnAHeldDedupKeyIsDoneWithTheHoldersIdAndCommitsItsRows() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await setUp(db, clock: clock)
        let holder = try await engine.start("approval", dedupKey: "user:1")
        let outcome = await engine.executeSyncCommand([
            "id": "s1", "type": "start_workflow", "payload": ["sequence_name": "approval", "dedup_key": "user:1"],
        ])
        #expect(outcome.kind == .done && outcome.instanceId == holder)
        await engine.shutdown()
        // The marker, ack and result were committed: a re-delivery after a restart is not run again.
        let reopened = try await setUp(db, clock: clock)
        let draft = try await reopened.draftSyncRequest(deviceID: "d")
        #expect(draft.body["command_acks"] == ["s1"])
        #expect(draft.body["command_results"]?[0]?["instance_id"] == .string(holder.rawValue))
        #expect(try await reopened.instances().items.count == 1)
        await reopened.shutdown()
    }

    @Test func theStartedInstanceIdIsInTheResultOfTheSameTransaction() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await setUp(db, clock: clock)
        let outcome = await engine.executeSyncCommand(["id": "s2", "type": "start_workflow", "payload": ["sequence_name": "approval"]])
        let started = try #require(outcome.instanceId)
        let draft = try await engine.draftSyncRequest(deviceID: "d")
        let results = draft.body["command_results"]?.arrayValue ?? []
        #expect(results.count == 1, "one result row, not a second one with the id")
        #expect(results.first?["instance_id"] == .string(started.rawValue))
        await engine.shutdown()
    }

    @Test func updateSequenceOnAnUnknownInstanceIsRejectedNotRetried() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let engine = try await setUp(db, clock: VirtualClock(start: 1_000))
        let outcome = await engine.executeSyncCommand([
            "id": "u9", "type": "update_sequence", "payload": ["instance_id": "6f0c3a52-8a3e-4c1d-9a57-1d2b3c4d5e6f"],
        ])
        #expect(outcome.kind == .rejected)
        #expect(try await engine.draftSyncRequest(deviceID: "d").body["command_acks"] == ["u9"])
        await engine.shutdown()
    }

    @Test func aRestartThatMustBeRetriedLeavesTheOldInstanceUntouched() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        var configuration = SyncOutboxTests.configuration
        configuration.maxConcurrentInstances = 1
        let engine = try await setUp(db, clock: clock, configuration: configuration)
        let id = try await engine.start("approval")
        try await runToRest(engine, clock: clock)
        // The new version's handler is not registered yet: the start must be retried later.
        let v2 = #"{"name": "approval", "version": 2, "blocks": [{"type": "step", "id": "s", "handler": "work"}]}"#
        _ = try await engine.loadSequence(json: Array(v2.utf8))
        await engine.registerHandler("work") { _ in [:] }
        let outcome = await engine.executeSyncCommand([
            "id": "u1", "type": "update_sequence",
            "payload": ["instance_id": .string(id.rawValue), "policy": "restart", "sequence_name": "missing-flow"],
        ])
        #expect(outcome.kind == .retry)
        #expect(try await engine.instance(id).state == .waiting, "nothing was cancelled")
        await engine.shutdown()
        let reopened = try await setUp(db, clock: clock, configuration: configuration)
        #expect(try await reopened.instance(id).state == .waiting, "nothing was committed either")
        #expect(try await reopened.draftSyncRequest(deviceID: "d").body["command_acks"] == [])
        await reopened.shutdown()
    }

    @Test func aRowReplacedWhileARequestIsOutSurvivesTheConfirmation() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000)
        let engine = try await setUp(db, clock: clock)
        // An ack row goes out; the same command's ack is queued again before the response.
        _ = await engine.executeSyncCommand(["id": "x1", "type": "explode"])
        let draft = try await engine.draftSyncRequest(deviceID: "d")
        #expect(draft.body["command_acks"] == ["x1"])
        _ = await engine.executeSyncCommand(["id": "x1", "type": "explode"])
        try await engine.confirmSyncDelivery(draft.sent)
        #expect(try await engine.draftSyncRequest(deviceID: "d").body["command_acks"] == ["x1"])
        await engine.shutdown()
    }
}

import Synchronization
import Foundation
import StepwiseExecution
import StepwiseJSON
import StepwiseSQLite
import StepwiseSequences

/// Runs one sequence case against a real engine on a temporary SQLite file with a virtual clock.
struct SequenceCaseRunner {
    let testCase: SequenceCase
    let clock = VirtualClock(start: 0)
    let recorder = CallRecorder()
    let databasePath: String

    init(testCase: SequenceCase) {
        self.testCase = testCase
        databasePath = FileManager.default.temporaryDirectory
            .appendingPathComponent("stepwise-conformance-\(UUID().uuidString).db").path
    }

    /// Why the case failed, or `nil` when it passed.
    func run() async -> String? {
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
        }
        do {
            return try await execute()
        } catch let error as StepwiseError {
            return "unexpected error: \(error)"
        } catch {
            return "unexpected error: \(error)"
        }
    }

    func openEngine() async throws -> StepwiseEngine {
        let store = try SQLiteExecutionStore(path: databasePath)
        // Handlers run on the engine's thread, which starts them in the order they were
        // dispatched (tree order): concurrent calls to one handler then get their scripted
        // responses by dispatch order on every run, not by which pool thread ran first.
        var configuration = EngineConfiguration()
        configuration.handlerExecution = .engineThread
        // Each (re)open draws from its own seed, as a new process would: one seed for every
        // engine would hand out the first run's instance ids again after a restart.
        let open = recorder.nextEngineOpen()
        let engine = try StepwiseEngine(
            store: store, configuration: configuration, clock: clock, randomSeed: 0x5EED &+ UInt64(open) &* 0x9E37_79B9_7F4A_7C15)
        await engine.unregisterAllHandlers()
        for (name, responses) in testCase.handlers {
            await engine.registerHandler(name, ScriptedHandler(name: name, responses: responses, recorder: recorder, clock: clock))
        }
        return engine
    }

    private func execute() async throws -> String? {
        let holder = EngineHolder(try await openEngine())
        var engine: StepwiseEngine { holder.engine }
        let loadError = testCase.expect["load_error"]?.stringValue
        if loadError != nil {
            // Handlers need not be listed in load_error cases: the extra sequences' handlers
            // stand registered, so the load under test is the main sequence's own.
            for bytes in testCase.extraSequenceBytes {
                for name in SequenceLoader.load(bytes).sequence?.handlerNames ?? [] where testCase.handlers[name] == nil {
                    await engine.registerHandler(name) { _ in .null }
                }
            }
        }
        do {
            for extra in testCase.extraSequenceBytes {
                _ = try await engine.loadSequence(json: extra)
            }
            _ = try await engine.loadSequence(json: testCase.sequenceBytes)
        } catch {
            if let loadError {
                func matches(_ e: StepwiseError) -> Bool {
                    loadError.isEmpty || e.message.contains(loadError) || e.code.rawValue.contains(loadError)
                }
                var reported = error
                if !matches(error), error.code == .unregisteredHandler {
                    // The case did not list the handlers (it need not): with stand-ins
                    // registered, the load reaches the checks after the handler check
                    // (a conflicting version, the storage limit) that the case may be about.
                    for name in SequenceLoader.load(testCase.sequenceBytes).sequence?.handlerNames ?? [] {
                        await engine.registerHandler(name) { _ in .null }
                    }
                    do { _ = try await engine.loadSequence(json: testCase.sequenceBytes) } catch { reported = error }
                }
                await engine.shutdown()
                return matches(reported) ? nil : "load error \"\(error.message)\" does not contain \"\(loadError)\""
            }
            await engine.shutdown()
            return "sequence failed to load: \(error.message)"
        }
        if let loadError {
            await engine.shutdown()
            return "expected a load error containing \"\(loadError)\", but the sequence loaded"
        }
        guard let name = testCase.sequence["name"]?.stringValue else { return "the sequence has no name" }
        var options = StartOptions()
        if let text = testCase.instanceID {
            guard let id = InstanceID(rawValue: text) else { return "instance_id '\(text)' is not a UUID" }
            options.instanceId = id
        }
        if let version = testCase.sequence["version"]?.exactIntegerValue { options.version = Int(version) }
        let id = try await engine.start(name, input: testCase.input, options: options)

        var actionIndex = 0
        var rounds = 0
        var idleChecks = 0
        /// Moves on after the armed action's attempt: to the next action when it was performed
        /// (the loop restarts), or to the case's failure.
        func applied(_ result: ActionResult) async -> (restart: Bool, failure: String?) {
            switch result {
            case .performed:
                actionIndex += 1
                idleChecks = 0
                return (true, nil)
            case .failed(let message):
                let action = testCase.actions[actionIndex]
                await engine.shutdown()
                return (false, "action \(actionIndex + 1) \(JSONWriter.string(action)): \(message)")
            case .notYet:
                return (false, nil)
            }
        }
        while true {
            rounds += 1
            if rounds > 500_000 { return "the run did not settle (the runner gave up after 500000 rounds)" }
            if actionIndex < testCase.actions.count, let step = testCase.actions[actionIndex]["crash_during"]?.stringValue {
                recorder.state.withLock { s in
                    if s.crashArmedStep == nil { s.crashArmedStep = step }
                }
            }
            let holdStep = actionIndex < testCase.actions.count && testCase.actions[actionIndex]["restart_engine"]?.boolValue == true
                ? testCase.actions[actionIndex]["after_step"]?.stringValue : nil
            await engine.setHoldDispatchAfterStep(holdStep)
            // A time trigger that already holds is performed before the pass dispatches
            // anything (`at_ms: 0` cancels before the first call).
            if actionIndex < testCase.actions.count, let at = testCase.actions[actionIndex]["at_ms"]?.exactIntegerValue,
                clock.now() >= at
            {
                let outcome = await applied(try await perform(testCase.actions[actionIndex], ordinal: ordinal(of: actionIndex), on: holder, instance: id))
                if let failure = outcome.failure { return failure }
                if outcome.restart { continue }
            }
            try await engine.runPass()
            await Task.yield()
            if actionIndex < testCase.actions.count {
                let outcome = await applied(try await perform(testCase.actions[actionIndex], ordinal: ordinal(of: actionIndex), on: holder, instance: id))
                if let failure = outcome.failure { return failure }
                if outcome.restart { continue }
            }
            let (busy, inFlight) = await engine.workAndCallsInFlight
            // Quiescent: every call in flight waits on the virtual clock or is held for a crash.
            if busy || inFlight != clock.sleeperCount + recorder.hangingCount {
                idleChecks = 0
                if rounds % 64 == 0 { try await Task.sleep(nanoseconds: 20_000) }
                continue
            }
            // Quiescent twice in a row: give just-finished handler tasks a chance to report.
            idleChecks += 1
            if idleChecks < 2 { continue }
            // A call held for a crash is released only by the crash action, which the next
            // round performs: time must not move (a timeout would fire) before it does.
            if recorder.hangingCount > 0 { continue }
            idleChecks = 0
            let live = await engine.hasLiveWork
            if !live { break }
            var next = await engine.nextDeadline()
            if let handlerDeadline = clock.nextDeadline, handlerDeadline < Int64.max {
                next = min(next ?? handlerDeadline, handlerDeadline)
            }
            if actionIndex < testCase.actions.count, let at = testCase.actions[actionIndex]["at_ms"]?.exactIntegerValue,
                at > clock.now()
            {
                next = min(next ?? at, at)
            }
            guard let deadline = next, deadline > clock.now() else { break }
            clock.advance(to: deadline)
        }
        let snapshot = try await engine.instance(id)
        let failures = Expectations(expect: testCase.expect, snapshot: snapshot, recorder: recorder).check()
        await engine.shutdown()
        return failures
    }

    enum ActionResult {
        case performed
        case notYet
        case failed(String)
    }

    /// `ordinal`: 1 + the number of earlier actions of the same kind for the same step (used by
    /// `after_step`).
    func perform(_ action: JSONValue, ordinal: Int, on holder: EngineHolder, instance id: InstanceID) async throws -> ActionResult {
        let engine = holder.engine
        if let step = action["on_waiting"]?.stringValue {
            // The started instance's wait, else one in a sub_sequence child (at any depth).
            guard let waiting = try await instanceWaiting(on: step, from: id, engine: engine) else { return .notYet }
            if action["cancel"]?.boolValue == true {
                // As `at_ms`: an instance already terminal (a wait in its on_failure/on_cancel
                // list) has nothing to cancel; the engine would refuse with invalidState.
                if !(try await engine.instance(id)).state.isTerminal { try await engine.cancelInstance(id) }
                return .performed
            }
            let payload = action["complete_step"] ?? .object(JSONObject())
            let expected = action["expect_rejected"]?.stringValue
            let before = expected == nil ? nil : try await engine.instance(waiting)
            do {
                try await engine.completeStep(instanceId: waiting, stepId: step, output: payload)
                if let expected { return .failed("completeStep was accepted, expected a rejection containing \"\(expected)\"") }
            } catch {
                guard let expected else { return .failed("completeStep was rejected: \(error.message)") }
                // An empty substring matches any rejection ("abc".contains("") is false in Swift).
                if !expected.isEmpty && !error.message.contains(expected) {
                    return .failed("rejection \"\(error.message)\" does not contain \"\(expected)\"")
                }
                // "and change nothing": the waits, data, outputs and state are as before.
                let after = try await engine.instance(waiting)
                if let before {
                    if after.waits.map(\.waitId) != before.waits.map(\.waitId) { return .failed("the rejected call changed the open waits") }
                    if after.data != before.data { return .failed("the rejected call changed context.data") }
                    if after.outputs != before.outputs { return .failed("the rejected call changed the outputs") }
                    if after.state != before.state { return .failed("the rejected call changed the state to \(after.state)") }
                }
            }
            return .performed
        }
        if let at = action["at_ms"]?.exactIntegerValue {
            guard clock.now() >= at else { return .notYet }
            if action["cancel"]?.boolValue == true {
                let current = try await engine.instance(id)
                if !current.state.isTerminal { try await engine.cancelInstance(id) }
            }
            return .performed
        }
        if let step = action["after_step"]?.stringValue, action["restart_engine"]?.boolValue == true {
            // The n-th `after_step` action of a step fires once its output has been recorded n
            // times (successive loop iterations), in the instance or a sub_sequence descendant.
            guard try await recordedOutputs(of: step, from: id, engine: engine) >= ordinal else { return .notYet }
            await engine.shutdown(waitingUpToMs: 0)
            holder.engine = try await openEngine()
            return .performed
        }
        if let step = action["crash_during"]?.stringValue {
            // Triggered by a call held when it started, or by one already running when the
            // action was armed (a call waiting on the virtual clock: the crash cancels it).
            let (armed, triggered) = recorder.state.withLock { s -> (String?, Bool) in
                if s.crashArmedStep == nil { s.crashArmedStep = step }
                return (s.crashArmedStep, s.crashTriggered || s.inFlightSteps[step, default: 0] > 0)
            }
            guard armed == step, triggered else { return .notYet }
            await engine.simulateCrash()
            holder.engine = try await openEngine()
            recorder.state.withLock { s in
                s.crashArmedStep = nil
                s.crashTriggered = false
            }
            return .performed
        }
        return .failed("unknown action")
    }
}

extension SequenceCaseRunner {
    /// 1 + the number of actions before `index` that name the same `after_step` step.
    func ordinal(of index: Int) -> Int {
        guard let step = testCase.actions[index]["after_step"]?.stringValue else { return 1 }
        return 1 + testCase.actions[..<index].filter { $0["after_step"]?.stringValue == step }.count
    }

    /// How many times `step`'s output was recorded in `root` and its sub_sequence descendants.
    func recordedOutputs(of step: String, from root: InstanceID, engine: StepwiseEngine) async throws -> Int {
        var queue = [root]
        var seen: Set<InstanceID> = []
        var count = 0
        while !queue.isEmpty {
            let id = queue.removeFirst()
            guard seen.insert(id).inserted else { continue }
            count += try await engine.history(of: id).filter { $0.kind == .stepSucceeded && $0.stepID == step }.count
            queue += try await engine.childInstances(of: id)
        }
        return count
    }

    /// The instance with an open wait of `step`: the started one, else the first of its
    /// sub_sequence descendants (breadth first) that has one.
    func instanceWaiting(on step: String, from root: InstanceID, engine: StepwiseEngine) async throws -> InstanceID? {
        var queue = [root]
        var seen: Set<InstanceID> = []
        while !queue.isEmpty {
            let id = queue.removeFirst()
            guard seen.insert(id).inserted else { continue }
            if try await engine.instance(id).waits.contains(where: { $0.stepId == step }) { return id }
            queue += try await engine.childInstances(of: id)
        }
        return nil
    }
}

/// The engine of a case; replaced when the runner restarts or crashes it.
final class EngineHolder: @unchecked Sendable {
    // Only the runner's task touches it, one await at a time.
    var engine: StepwiseEngine
    init(_ engine: StepwiseEngine) { self.engine = engine }
}

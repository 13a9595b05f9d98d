import Foundation
import Stepwise
import Synchronization
import Testing

/// Resident memory of this process in bytes (`VmRSS` of `/proc/self/status`), `nil` where
/// that file does not exist.
func residentMemoryBytes() -> Int? {
    #if os(Linux)
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return kilobytes.map { $0 * 1024 }
    }
    return nil
    #else
    return nil
    #endif
}

/// `12.3 MiB`, or `n/a`.
func mebibytes(_ bytes: Int?) -> String {
    guard let bytes else { return "n/a" }
    return String(format: "%.1f MiB", Double(bytes) / 1_048_576)
}

/// The sizes of one engine load run; `STEPWISE_LOAD_INSTANCES` (default 1,000) and
/// `STEPWISE_LOAD_WAVES` (default 1) scale it.
struct EngineLoadPlan: Sendable {
    let instances: Int
    /// Rounds of `instances` run one after another on the same engine (memory must stay flat).
    let waves: Int
    let branches = 10
    let completerTasks = 8

    static var fromEnvironment: EngineLoadPlan {
        let environment = ProcessInfo.processInfo.environment
        let requested = environment["STEPWISE_LOAD_INSTANCES"].flatMap { Int($0) }
        let waves = environment["STEPWISE_LOAD_WAVES"].flatMap { Int($0) }
        return EngineLoadPlan(instances: min(max(1, requested ?? 1_000), 100_000), waves: min(max(1, waves ?? 1), 100))
    }

    /// A sequence whose `parallel` has one `wait_for_input` step per branch, then a final step.
    var sequence: String {
        let branchBlocks = (0..<branches).map { index in
            #"[{"type": "step", "id": "w\#(index)", "handler": "ask", "wait_for_input": {"prompt": "answer \#(index)", "store_as": "a\#(index)"}}]"#
        }
        return #"""
            {"name": "load", "version": 1, "blocks": [
              {"type": "parallel", "id": "fan", "branches": [\#(branchBlocks.joined(separator: ", "))]},
              {"type": "step", "id": "done", "handler": "ask"}
            ]}
            """#
    }
}

/// One answer: which instance, which wait, and the value a caller sent.
struct LoadAnswer: Sendable, Hashable {
    let instance: InstanceID
    let step: String
}

/// Instance ids in the order they were started, shared between the starting task and the others.
final class StartedInstances: Sendable {
    private let ids = Mutex<[InstanceID]>([])

    func append(_ id: InstanceID) { ids.withLock { $0.append(id) } }

    /// The `index`-th started instance, once it exists.
    func id(at index: Int) -> InstanceID? { ids.withLock { $0.count > index ? $0[index] : nil } }

    var all: [InstanceID] { ids.withLock { $0 } }
}

/// Which caller's answer the engine accepted, per wait; a second acceptance is a lost update.
final class AcceptedAnswers: Sendable {
    private let accepted = Mutex<[LoadAnswer: String]>([:])
    private let doubles = Mutex<[LoadAnswer]>([])
    private let refusals = Mutex<[String: Int]>([:])
    private let unexpected = Mutex<[String]>([])

    func accept(_ answer: LoadAnswer, value: String) {
        let previous = accepted.withLock { map in
            let old = map[answer]
            if old == nil { map[answer] = value }
            return old
        }
        if previous != nil { doubles.withLock { $0.append(answer) } }
    }

    func refuse(_ error: any Error) {
        guard let error = error as? StepwiseError, error.code == .invalidState else {
            unexpected.withLock { $0.append("\(error)") }
            return
        }
        let terminal = ["completed", "failed", "cancelled"].contains(error.context["instance_state"]?.stringValue ?? "")
        let kind = terminal || !error.message.contains("is not waiting") ? "instance terminal" : "step not waiting"
        refusals.withLock { $0[kind, default: 0] += 1 }
    }

    func value(of answer: LoadAnswer) -> String? { accepted.withLock { $0[answer] } }
    var acceptedCount: Int { accepted.withLock { $0.count } }
    var doubleAcceptances: [LoadAnswer] { doubles.withLock { $0 } }
    var refusalCounts: [String: Int] { refusals.withLock { $0 } }
    var unexpectedErrors: [String] { unexpected.withLock { $0 } }
}

@Suite("Engine under load")
struct EngineLoadTests {
    /// 1,000 instances, each a `parallel` of 10 waits; 10,000 answers from 8 concurrent tasks,
    /// with racing duplicates and late answers; every answer recorded exactly once.
    @Test("1,000 instances × 10 parallel waits, 10,000 completeStep calls from 8 tasks", .timeLimit(.minutes(15)))
    func concurrentCompletions() async throws {
        let plan = EngineLoadPlan.fromEnvironment
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        var configuration = EngineConfiguration.forTests
        configuration.maxConcurrentInstances = UInt32(plan.instances * 2)
        configuration.maxConcurrentSteps = 64
        configuration.telemetryEnabled = false
        let clock = VirtualClock()
        let engine = try StepwiseEngine(databasePath: db.path, configuration: configuration, clock: clock, randomSeed: 2026)
        let handlerCalls = Counter()
        await engine.registerHandler("ask") { context in
            handlerCalls.hit(context.stepId == "done" ? "done" : "ask")
            return [:]
        }
        _ = try await engine.loadSequence(json: Array(plan.sequence.utf8))
        await engine.resume()
        var memory = ["start \(mebibytes(residentMemoryBytes()))"]
        for wave in 0..<plan.waves {
            let figures = try await Self.runWave(wave, plan: plan, engine: engine)
            memory.append("wave \(wave + 1): all waiting \(mebibytes(figures.memoryWaiting)), end \(mebibytes(residentMemoryBytes()))")
            print(
                """
                engine load wave \(wave + 1)/\(plan.waves): \(plan.instances) instances, \(figures.waits) waits, \
                \(figures.calls) completeStep calls (\(figures.accepted) accepted, refused \(figures.refusals)) from \
                \(plan.completerTasks) tasks; \(String(format: "%.1f", figures.seconds)) s start to finish, answers \
                \(String(format: "%.1f", figures.answerSeconds)) s (\(String(format: "%.0f", Double(figures.calls) / figures.answerSeconds)) \
                calls/s)
                """)
        }
        #expect(handlerCalls.count("ask") == plan.instances * plan.branches * plan.waves)
        #expect(handlerCalls.count("done") == plan.instances * plan.waves)
        await engine.shutdown()
        print("engine load RSS: \(memory.joined(separator: "; "))")
    }

    /// Answers sent while the engine is still starting the instances and running the waits'
    /// handlers (a wait not open yet is refused and retried): each answer lands exactly once.
    /// In both handler modes: with `.engineThread`, a wake that ran while the run loop was
    /// entering its wait was lost and stalled this test (fixed: the check is made inside the
    /// continuation's body).
    @Test(
        "answers racing the dispatch of their waits: each recorded exactly once", .timeLimit(.minutes(15)),
        arguments: [EngineConfiguration.HandlerExecution.sharedPool, .engineThread])
    func answersRacingDispatch(handlerExecution: EngineConfiguration.HandlerExecution) async throws {
        let plan = EngineLoadPlan(instances: 300, waves: 1)
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        var configuration = EngineConfiguration.forTests
        configuration.maxConcurrentInstances = UInt32(plan.instances * 2)
        configuration.maxConcurrentSteps = 16
        configuration.telemetryEnabled = false
        configuration.handlerExecution = handlerExecution
        let engine = try StepwiseEngine(
            databasePath: db.path, configuration: configuration, clock: VirtualClock(), randomSeed: 7)
        await engine.registerHandler("ask") { _ in
            await Task.yield()
            return [:]
        }
        _ = try await engine.loadSequence(json: Array(plan.sequence.utf8))
        await engine.resume()
        let ids = StartedInstances()
        let accepted = AcceptedAnswers()
        let retries = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<plan.instances {
                    let id = try await engine.start("load", input: ["n": .integer(Int64(index))])
                    ids.append(id)
                }
            }
            for task in 0..<plan.completerTasks {
                group.addTask {
                    var next = task
                    while next < plan.instances * plan.branches {
                        let (instance, branch) = (next / plan.branches, next % plan.branches)
                        guard let id = ids.id(at: instance) else {
                            try await Task.sleep(for: .milliseconds(1))
                            continue
                        }
                        let answer = LoadAnswer(instance: id, step: "w\(branch)")
                        var done = false
                        for _ in 0..<100_000 where !done {  // hang guard
                            do {
                                try await engine.completeStep(
                                    instanceId: id, stepId: answer.step, output: ["value": .string("\(id):\(answer.step)")])
                                accepted.accept(answer, value: "\(id):\(answer.step)")
                                done = true
                            } catch let error as StepwiseError where error.code == .invalidState && !error.message.contains("completed") {
                                retries.hit("retry")
                                try await Task.sleep(for: .milliseconds(1))
                            } catch {
                                accepted.refuse(error)
                                done = true
                            }
                        }
                        next += plan.completerTasks
                    }
                }
            }
            try await group.waitForAll()
        }
        var active = -1
        for _ in 0..<12_000 {  // hang guard: at most 10 minutes of polling
            active = try await engine.activeInstances().count
            if active == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(active == 0, "every instance finishes (hang guard)")
        #expect(accepted.acceptedCount == plan.instances * plan.branches, "refused: \(accepted.refusalCounts)")
        #expect(accepted.doubleAcceptances.isEmpty)
        #expect(accepted.unexpectedErrors.isEmpty, "\(accepted.unexpectedErrors.prefix(5))")
        var lost = 0
        for id in ids.all {
            let snapshot = try await engine.instance(id)
            #expect(snapshot.state == .completed)
            let inputs = try await engine.history(of: id).filter { $0.kind == .inputReceived }.compactMap(\.stepID)
            #expect(inputs.sorted() == (0..<plan.branches).map { "w\($0)" }.sorted())
            for branch in 0..<plan.branches where snapshot.data["a\(branch)"] != .string("\(id):w\(branch)") { lost += 1 }
        }
        #expect(lost == 0)
        await engine.shutdown()
        print("engine race: \(accepted.acceptedCount) answers accepted after \(retries.count("retry")) early refusals (wait not open yet)")
    }

    /// What one wave measured.
    struct WaveFigures {
        let waits: Int
        let calls: Int
        let accepted: Int
        let refusals: [String: Int]
        let seconds: Double
        let answerSeconds: Double
        let memoryWaiting: Int?
    }

    /// Starts `plan.instances` instances, answers all their waits from concurrent tasks (with
    /// racing duplicates), waits until all finish, sends late answers, and checks the records.
    private static func runWave(_ wave: Int, plan: EngineLoadPlan, engine: StepwiseEngine) async throws -> WaveFigures {
        let started = ContinuousClock.now
        var ids: [InstanceID] = []
        for index in 0..<plan.instances {
            ids.append(try await engine.start("load", input: ["n": .integer(Int64(index)), "wave": .integer(Int64(wave))]))
        }
        let expectedWaits = plan.instances * plan.branches
        var open = 0
        for _ in 0..<12_000 {  // hang guard: at most 10 minutes of polling
            open = try await engine.pendingWaits().count
            if open == expectedWaits { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try #require(open == expectedWaits, "every wait opens (hang guard)")
        let memoryWaiting = residentMemoryBytes()

        // Every (instance, wait) once, shuffled by a seeded generator, split over the tasks.
        var answers = ids.flatMap { id in (0..<plan.branches).map { LoadAnswer(instance: id, step: "w\($0)") } }
        var random = SeededRandom(seed: 42 + UInt64(wave))
        answers.shuffle(using: &random)
        let slices = (0..<plan.completerTasks).map { task in
            stride(from: task, to: answers.count, by: plan.completerTasks).map { answers[$0] }
        }
        let accepted = AcceptedAnswers()
        let calls = Counter()
        let answering = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<plan.completerTasks {
                let mine = slices[task]
                // Racing duplicates: every 10th answer of the next task's slice, another value.
                let duplicates = slices[(task + 1) % plan.completerTasks].enumerated().filter { $0.offset % 10 == 0 }
                    .map(\.element)
                group.addTask {
                    var duplicateIndex = 0
                    for (offset, answer) in mine.enumerated() {
                        await send(engine, answer, value: "\(answer.instance):\(answer.step)", accepted, calls)
                        if offset % 10 == 5, duplicateIndex < duplicates.count {
                            let duplicate = duplicates[duplicateIndex]
                            duplicateIndex += 1
                            await send(engine, duplicate, value: "duplicate-from-\(task)", accepted, calls)
                        }
                    }
                    for duplicate in duplicates[duplicateIndex...] {
                        await send(engine, duplicate, value: "duplicate-from-\(task)", accepted, calls)
                    }
                }
            }
        }
        let answerSeconds = seconds(ContinuousClock.now - answering)

        var active = -1
        for _ in 0..<12_000 {  // hang guard: at most 10 minutes of polling
            active = try await engine.activeInstances().count
            if active == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let elapsed = seconds(ContinuousClock.now - started)
        #expect(active == 0, "every instance finishes (hang guard)")

        // Late answers to finished instances are refused with invalidState.
        for id in ids.prefix(100) {
            await send(engine, LoadAnswer(instance: id, step: "w0"), value: "late", accepted, calls)
        }

        #expect(accepted.unexpectedErrors.isEmpty, "\(accepted.unexpectedErrors.prefix(5))")
        #expect(accepted.doubleAcceptances.isEmpty, "answers accepted twice: \(accepted.doubleAcceptances.prefix(5))")
        #expect(accepted.acceptedCount == expectedWaits)
        let refused = accepted.refusalCounts.values.reduce(0, +)
        #expect(refused == calls.count("calls") - expectedWaits, "every other call is refused: \(accepted.refusalCounts)")
        #expect((accepted.refusalCounts["instance terminal"] ?? 0) >= 100)

        var lost = 0
        var wrongHistory = 0
        for id in ids {
            let snapshot = try await engine.instance(id)
            #expect(snapshot.state == .completed)
            for branch in 0..<plan.branches {
                let answer = LoadAnswer(instance: id, step: "w\(branch)")
                if snapshot.data["a\(branch)"] != accepted.value(of: answer).map(JSONValue.string) { lost += 1 }
            }
            let inputs = try await engine.history(of: id).filter { $0.kind == .inputReceived }.compactMap(\.stepID)
            if inputs.sorted() != (0..<plan.branches).map({ "w\($0)" }).sorted() { wrongHistory += 1 }
        }
        #expect(lost == 0, "recorded answers differ from the accepted ones")
        #expect(wrongHistory == 0, "each answer appears exactly once in the history")
        return WaveFigures(
            waits: expectedWaits, calls: calls.count("calls"), accepted: accepted.acceptedCount,
            refusals: accepted.refusalCounts, seconds: elapsed, answerSeconds: answerSeconds, memoryWaiting: memoryWaiting)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Sends one answer and records whether it was accepted or refused.
    private static func send(
        _ engine: StepwiseEngine, _ answer: LoadAnswer, value: String, _ accepted: AcceptedAnswers, _ calls: Counter
    ) async {
        calls.hit("calls")
        do {
            try await engine.completeStep(instanceId: answer.instance, stepId: answer.step, output: ["value": .string(value)])
            accepted.accept(answer, value: value)
        } catch {
            accepted.refuse(error)
        }
    }
}

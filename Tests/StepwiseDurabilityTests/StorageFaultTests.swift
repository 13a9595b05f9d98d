import Foundation
import Stepwise
import StepwiseSQLite
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether file modes bind this process (root ignores them, so the read-only-file tests are
/// skipped there; the `query_only` variants cover the same engine paths).
private let fileModesApply = geteuid() != 0

/// Storage faults through the public engine API: each gives a clear error, leaves nothing
/// half-applied, and the instance reaches the fault-free result once the fault clears.
@Suite("Storage faults: clear errors, nothing half-applied, recovery once the fault clears")
struct StorageFaultTests {
    static let yes: JSONValue = ["value": "yes", "note": .string(bulkyNote)]

    /// An engine with one instance waiting at `approve`.
    private func waitingInstance(
        _ directory: FaultTestDirectory, faults: StorageFaultSwitch, log: HandlerLog, clock: VirtualClock,
        configuration: EngineConfiguration = faultConfiguration(), busyTimeoutMs: Int = 5_000
    ) async throws -> (StepwiseEngine, InstanceID) {
        let store = try openFaultableStore(path: directory.database, faults: faults, busyTimeoutMs: busyTimeoutMs)
        let engine = try await openFaultEngine(store: store, clock: clock, log: log, configuration: configuration)
        let id = try await engine.start("faults", input: ["user": "ada"])
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .waiting)
        return (engine, id)
    }

    /// The checks after a refused `completeStep`: the instance still waits, exactly as committed.
    private func expectStillWaiting(_ engine: StepwiseEngine, _ id: InstanceID, dump: [String], path: String) async throws {
        #expect(try databaseDump(path) == dump, "a failed call must not write anything")
        let snapshot = try await engine.instance(id)
        #expect(snapshot.state == .waiting)
        #expect(snapshot.waits.map(\.stepId) == ["approve"])
        #expect(snapshot.data["decision"] == nil)
        #expect(try await engine.pendingWaits().map(\.stepId) == ["approve"])
    }

    /// The checks once the instance finished after a fault: same result as a fault-free run,
    /// each completed step ran once.
    private func expectFaultFreeResult(
        _ engine: StepwiseEngine, _ id: InstanceID, log: HandlerLog, path: String, prepareRuns: Int = 1
    ) async throws {
        let reference = try await faultFreeOutcome(decision: Self.yes)
        let outcome = try await RunOutcome(engine: engine, id: id)
        #expect(outcome == reference)
        #expect(outcome.state == .completed)
        #expect(outcome.receivedInputs == ["approve"], "the answer is recorded exactly once")
        #expect(log.count("prepare") == prepareRuns)
        #expect(log.keys("prepare").count == 1, "a re-run attempt keeps its idempotency key")
        #expect(log.count("approve") == 1)
        #expect(log.count("finish") == 1)
        #expect(try rowCount(path, "outbox") >= 1, "the instance's status row is queued for sync")
    }

    // MARK: Disk full

    @Test("disk full on completeStep: storage error, nothing written, the same call succeeds later")
    func diskFullOnCompleteStep() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let faults = StorageFaultSwitch()
        let log = HandlerLog()
        let clock = VirtualClock()
        let (engine, id) = try await waitingInstance(directory, faults: faults, log: log, clock: clock)
        let before = try databaseDump(directory.database)

        faults.fault = .diskFull
        let error = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        }
        expectStorageError(error, reason: "disk_full", path: directory.database, mentioning: ["full", "SQLITE_FULL"])
        try await expectStillWaiting(engine, id, dump: before, path: directory.database)
        // Still full: a second attempt fails the same way, and the run loop has nothing to do.
        await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        }
        _ = try await engine.tickOnce()

        faults.fault = .none
        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        try await runToRest(engine, clock: clock)
        try await expectFaultFreeResult(engine, id, log: log, path: directory.database)
        await engine.shutdown()
    }

    @Test("disk full while a handler result commits: the attempt re-runs with the same key, nothing else")
    func diskFullOnHandlerResult() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let faults = StorageFaultSwitch()
        let log = HandlerLog()
        let clock = VirtualClock()
        let store = try openFaultableStore(path: directory.database, faults: faults)
        // The first `prepare` call fills the disk just before it returns a bulky output.
        let engine = try await openFaultEngine(store: store, clock: clock, log: log) { context in
            if context.stepId == "prepare" && log.count("prepare") == 1 { faults.fault = .diskFull }
            return ["step": .string(context.stepId), "note": .string(bulkyNote)]
        }
        let id = try await engine.start("faults", input: ["user": "ada"])
        let error = await #expect(throws: StepwiseError.self) { try await engine.tickOnce() }
        expectStorageError(error, reason: "disk_full", path: directory.database, mentioning: ["full"])
        // The dispatch record is durable, the result is not: the step is in flight, no output.
        let reopenedView = try await engine.instance(id)
        #expect(reopenedView.state == .running)
        #expect(reopenedView.outputs["prepare"] == nil)
        #expect(try await engine.history(of: id).filter { $0.kind == .stepSucceeded }.isEmpty)

        faults.fault = .none
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .waiting)
        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        try await runToRest(engine, clock: clock)
        let outcome = try await RunOutcome(engine: engine, id: id)
        #expect(outcome.state == .completed)
        #expect(outcome.succeededSteps == ["prepare", "approve", "finish"], "each output recorded exactly once")
        #expect(log.count("prepare") == 2, "the attempt whose result was lost re-ran once")
        #expect(log.keys("prepare").count == 1, "with the same idempotency key")
        #expect(log.count("finish") == 1)
        await engine.shutdown()
    }

    @Test("disk full on start: no instance row, no journal, no outbox row; start works afterwards")
    func diskFullOnStart() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let faults = StorageFaultSwitch()
        let log = HandlerLog()
        let clock = VirtualClock()
        let store = try openFaultableStore(path: directory.database, faults: faults)
        let engine = try await openFaultEngine(store: store, clock: clock, log: log)
        let before = try databaseDump(directory.database)
        faults.fault = .diskFull
        let error = await #expect(throws: StepwiseError.self) {
            try await engine.start("faults", input: ["user": "ada", "note": .string(bulkyNote)], dedupKey: "ada")
        }
        expectStorageError(error, reason: "disk_full", path: directory.database, mentioning: ["full"])
        #expect(try databaseDump(directory.database) == before)
        #expect(try await engine.instances().items.isEmpty)
        #expect(try await engine.activeInstances().isEmpty)
        // Loading a new version fails the same way and leaves the loaded versions as they were.
        let version2 = faultSequence.replacingOccurrences(of: #""version": 1"#, with: #""version": 2"#)
            .replacingOccurrences(of: "Approve?", with: "Approve? " + bulkyNote)
        let load = await #expect(throws: StepwiseError.self) { try await engine.loadSequence(json: Array(version2.utf8)) }
        expectStorageError(load, reason: "disk_full", path: directory.database, mentioning: ["full"])
        #expect(await engine.loadedSequences().map(\.key.version) == [1])
        #expect(try databaseDump(directory.database) == before)

        faults.fault = .none
        let id = try await engine.start("faults", input: ["user": "ada"], dedupKey: "ada")
        #expect(try await engine.start("faults", input: ["user": "ada"], dedupKey: "ada") == id, "the key is held once")
        try await runToRest(engine, clock: clock)
        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        #expect(log.count("prepare") == 1 && log.count("finish") == 1)
        await engine.shutdown()
    }

    @Test("a commit failing while a durable timer fires: the timer fires again once storage works")
    func failedCommitOfAFiredTimer() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let faults = StorageFaultSwitch()
        let log = HandlerLog()
        let clock = VirtualClock()
        let store = try openFaultableStore(path: directory.database, faults: faults)
        let engine = try await openFaultEngine(store: store, clock: clock, log: log)
        _ = try await engine.loadSequence(
            json: Array(
                #"{"name": "nap", "version": 1, "blocks": [{"type": "step", "id": "nap", "handler": "sleep", "params": {"ms": 1000}}, {"type": "step", "id": "finish", "handler": "work"}]}"#
                    .utf8))
        let id = try await engine.start("nap")
        _ = try await engine.runUntilIdle(maxTicks: 10, timeBudgetMs: 30_000)
        let due = try #require(await engine.nextDeadline())
        let before = try databaseDump(directory.database)
        clock.advance(to: due)
        faults.fault = .injected(code: 13, sqlPrefixes: ["INSERT INTO journal", "INSERT INTO change_log"])
        let error = await #expect(throws: StepwiseError.self) { try await engine.tickOnce() }
        expectStorageError(error, reason: "disk_full", path: directory.database, mentioning: ["SQLITE_FULL"])
        #expect(try databaseDump(directory.database) == before)

        faults.fault = .none
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed, "the timer popped by the failed pass is re-armed")
        #expect(log.count("finish") == 1)
        await engine.shutdown()
    }

    @Test("the background run loop backs off while commits fail, then finishes the instance once they work")
    func runLoopBacksOffWhileStorageFails() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let faults = StorageFaultSwitch()
        let log = HandlerLog()
        let clock = VirtualClock()
        let store = try openFaultableStore(path: directory.database, faults: faults)
        // Every `prepare` result fails to commit while the fault is on.
        let engine = try await openFaultEngine(store: store, clock: clock, log: log) { context in
            if context.stepId == "prepare" && log.count("prepare") == 1 {
                faults.fault = .injected(code: 13, sqlPrefixes: ["INSERT INTO journal", "INSERT INTO change_log"])
            }
            return ["step": .string(context.stepId)]
        }
        let id = try await engine.start("faults", input: ["user": "ada"])
        await engine.resume()
        var settled = false
        for _ in 0..<20_000 where !settled {  // hang guard
            try await Task.sleep(for: .milliseconds(1))
            settled = faults.injectedCount >= 1
        }
        try #require(settled, "the first attempt ran and its result was not recorded (hang guard)")
        // The clock does not move: a loop that backs off runs no further attempt meanwhile.
        for _ in 0..<100 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(log.count("prepare") == 1, "no hot retry loop while storage fails")

        faults.fault = .none
        var state = InstanceState.running
        for round in 1...2_000 where state != .waiting {  // hang guard
            clock.advance(to: Int64(round) * 10_000)
            try await Task.sleep(for: .milliseconds(5))
            state = try await engine.instance(id).state
        }
        #expect(state == .waiting, "the loop retried after its heartbeat")
        #expect(log.count("prepare") == 2 && log.keys("prepare").count == 1, "one re-run, same idempotency key")
        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        for round in 2_001...4_000 where state != .completed {  // hang guard
            clock.advance(to: Int64(round) * 10_000)
            try await Task.sleep(for: .milliseconds(5))
            state = try await engine.instance(id).state
        }
        let error = try await engine.instance(id).error
        #expect(state == .completed, "\(String(describing: error))")
        #expect(log.count("finish") == 1)
        await engine.shutdown()
    }

    @Test("the background run loop reloads an instance whose reload failed along with its commit")
    func runLoopReloadsAfterFailedReload() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let faults = StorageFaultSwitch()
        let log = HandlerLog()
        let clock = VirtualClock()
        let (engine, id) = try await waitingInstance(directory, faults: faults, log: log, clock: clock)
        await engine.resume()
        faults.fault = .injected(code: 11, sqlPrefixes: ["INSERT INTO journal", "INSERT INTO change_log", "SELECT"])
        let error = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        }
        #expect(error?.code == .storage)
        #expect(try await engine.pendingWaits().isEmpty, "the instance could not be reloaded yet")
        // Heartbeats while the store still cannot be read: each retry fails, the loop keeps trying.
        let failedReads = faults.injectedCount
        for round in 1...2_000 where faults.injectedCount < failedReads + 2 {  // hang guard
            clock.advance(to: Int64(round) * 10_000)
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(faults.injectedCount >= failedReads + 2, "the loop retried the reload")
        faults.fault = .none

        // No API call touches the instance: the loop's heartbeat brings it back.
        var waits: [PendingStep] = []
        for round in 2_001...4_000 where waits.isEmpty {  // hang guard
            clock.advance(to: Int64(round) * 10_000)
            try await Task.sleep(for: .milliseconds(5))
            waits = try await engine.pendingWaits()
        }
        #expect(waits.map(\.stepId) == ["approve"])
        await engine.shutdown()
    }

    // MARK: Read-only

    @Test("read-only connection (query_only) on completeStep and cancel: storage error, recovery after")
    func readOnlyConnection() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let faults = StorageFaultSwitch()
        let log = HandlerLog()
        let clock = VirtualClock()
        let (engine, id) = try await waitingInstance(directory, faults: faults, log: log, clock: clock)
        let before = try databaseDump(directory.database)

        faults.fault = .readOnly
        let error = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        }
        expectStorageError(error, reason: "read_only", path: directory.database, mentioning: ["readonly"])
        let cancel = await #expect(throws: StepwiseError.self) { try await engine.cancelInstance(id) }
        expectStorageError(cancel, reason: "read_only", path: directory.database, mentioning: ["readonly"])
        try await expectStillWaiting(engine, id, dump: before, path: directory.database)
        #expect(try await engine.instance(id).cancelRequested == false, "the refused cancel left no trace")

        faults.fault = .none
        // The switch acts at the next statement the store steps; `BEGIN` is not one, so a read
        // lifts `query_only` before the next write transaction begins.
        _ = try await engine.history(of: id)
        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        try await runToRest(engine, clock: clock)
        try await expectFaultFreeResult(engine, id, log: log, path: directory.database)
        await engine.shutdown()
    }

    @Test(
        "a read-only database file or directory: opening fails with storage naming the file; writable again, it runs on",
        .enabled(if: fileModesApply, "root ignores file modes"),
        arguments: [(file: 0o444, directory: 0o755), (file: 0o644, directory: 0o555), (file: 0o444, directory: 0o555)])
    func readOnlyFile(modes: (file: Int, directory: Int)) async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let log = HandlerLog()
        let clock = VirtualClock()
        let (_, bytes) = try await checkpointedWaitingDatabase(directory, log: log)
        // A copy without `-wal`/`-shm` in its own directory: what a host finds after a restore
        // or on a read-only volume (with the side files present SQLite would write into them).
        let readOnly = directory.url.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
        let path = readOnly.appendingPathComponent("engine.db").path
        try bytes.write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: modes.file], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: modes.directory], ofItemAtPath: readOnly.path)
        let error = #expect(throws: StepwiseError.self) {
            _ = try StepwiseEngine(databasePath: path, clock: clock, randomSeed: 11)
        }
        #expect(error?.code == .storage, "\(String(describing: error))")
        #expect(error?.message.contains(path) == true, "\(String(describing: error))")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: readOnly.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "the failed open wrote nothing")

        let engine = try await openFaultEngine(store: try SQLiteExecutionStore(path: path), clock: clock, log: log)
        let id = try #require(try await engine.instances().items.first?.instanceId)
        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        try await runToRest(engine, clock: clock)
        try await expectFaultFreeResult(engine, id, log: log, path: path)
        await engine.shutdown()
    }

    // MARK: Locked

    @Test("another connection holds the write lock: timeout after operationTimeoutMs, recovery after release")
    func lockedDatabase() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let faults = StorageFaultSwitch()
        let log = HandlerLog()
        let clock = VirtualClock()
        let (engine, id) = try await waitingInstance(
            directory, faults: faults, log: log, clock: clock, configuration: faultConfiguration(operationTimeoutMs: 200),
            busyTimeoutMs: 200)
        let before = try databaseDump(directory.database)

        // Another connection (as another process would) takes the write lock and keeps it.
        let holder = try SQLiteConnection(path: directory.database, configuration: .init(durability: .normal))
        try holder.execute("BEGIN EXCLUSIVE")
        try holder.execute("INSERT INTO metadata (key, value) VALUES ('held-by-test', 'x')")
        let error = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        }
        expectStorageError(error, code: .timeout, reason: "locked", path: directory.database, mentioning: ["locked", "200 ms"])
        let started = await #expect(throws: StepwiseError.self) { try await engine.start("faults", input: ["user": "bob"]) }
        #expect(started?.code == .timeout)
        // Reads are not blocked by a writer in WAL mode.
        try await expectStillWaiting(engine, id, dump: before, path: directory.database)
        try holder.execute("ROLLBACK")

        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        try await runToRest(engine, clock: clock)
        try await expectFaultFreeResult(engine, id, log: log, path: directory.database)
        #expect(try await engine.instances().items.count == 1, "the refused start left no instance")
        await engine.shutdown()
    }

    @Test("opening a database whose write lock another connection holds, then running once it is released")
    func openWhileLocked() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let log = HandlerLog()
        let clock = VirtualClock()
        let id: InstanceID
        do {
            let engine = try await openFaultEngine(
                store: try SQLiteExecutionStore(path: directory.database), clock: clock, log: log)
            id = try await engine.start("faults", input: ["user": "ada"])
            try await runToRest(engine, clock: clock)
            await engine.shutdown()
        }
        let holder = try SQLiteConnection(path: directory.database, configuration: .init(durability: .normal))
        try holder.execute("BEGIN IMMEDIATE")
        try holder.execute("INSERT INTO metadata (key, value) VALUES ('held-by-test', 'x')")
        var configuration = faultConfiguration(operationTimeoutMs: 150)
        configuration.syncUrl = ""
        // Opening only reads (the schema is current), so it succeeds; the first write times out.
        let engine = try StepwiseEngine(databasePath: directory.database, configuration: configuration, clock: clock, randomSeed: 3)
        await engine.registerHandler("work") { context in
            log.record(context)
            return ["step": .string(context.stepId)]
        }
        let error = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        }
        expectStorageError(error, code: .timeout, reason: "locked", path: directory.database, mentioning: ["locked"])
        try holder.execute("ROLLBACK")
        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        try await runToRest(engine, clock: clock)
        #expect(try await engine.instance(id).state == .completed)
        #expect(log.count("prepare") == 1 && log.count("finish") == 1)
        await engine.shutdown()
    }

    @Test("creating the schema while another connection holds the write lock: timeout naming the file, then it opens")
    func migrateWhileLocked() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        // An empty WAL database whose write lock another connection holds.
        let holder = try SQLiteConnection(path: directory.database, configuration: .init(durability: .normal))
        try holder.execute("BEGIN IMMEDIATE")
        try holder.execute("CREATE TABLE held_by_test (x)")
        var configuration = EngineConfiguration()
        configuration.operationTimeoutMs = 150
        let error = #expect(throws: StepwiseError.self) {
            _ = try StepwiseEngine(databasePath: directory.database, configuration: configuration, randomSeed: 3)
        }
        expectStorageError(error, code: .timeout, reason: "locked", path: directory.database, mentioning: ["locked", "150 ms"])
        try holder.execute("ROLLBACK")

        let log = HandlerLog()
        let clock = VirtualClock()
        let engine = try await openFaultEngine(
            store: try SQLiteExecutionStore(path: directory.database, busyTimeoutMs: 150), clock: clock, log: log)
        let id = try await engine.start("faults", input: ["user": "ada"])
        try await runToRest(engine, clock: clock)
        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        try await runToRest(engine, clock: clock)
        try await expectFaultFreeResult(engine, id, log: log, path: directory.database)
        await engine.shutdown()
    }

    // MARK: Corruption

    @Test("a file that is not a database: storage error naming it, and the file is left untouched")
    func notADatabase() throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let text = Array(String(repeating: "these are my holiday notes, not a database\n", count: 200).utf8)
        #expect(FileManager.default.createFile(atPath: directory.database, contents: Data(text)))
        let error = #expect(throws: StepwiseError.self) { _ = try StepwiseEngine(databasePath: directory.database) }
        expectStorageError(error, reason: "corrupt", path: directory.database, mentioning: ["not a database"])
        #expect(FileManager.default.contents(atPath: directory.database).map(Array.init) == text, "never overwritten")
    }

    /// Builds a database with one waiting instance, checkpointed into the main file, and returns
    /// its bytes (the backup a host would restore).
    private func checkpointedWaitingDatabase(_ directory: FaultTestDirectory, log: HandlerLog) async throws -> (InstanceID, Data) {
        let clock = VirtualClock()
        let engine = try await openFaultEngine(store: try SQLiteExecutionStore(path: directory.database), clock: clock, log: log)
        let id = try await engine.start("faults", input: ["user": "ada"])
        try await runToRest(engine, clock: clock)
        await engine.shutdown()
        let checkpointer = try SQLiteConnection(path: directory.database, configuration: .init(durability: .normal))
        try checkpointer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return (id, try Data(contentsOf: URL(fileURLWithPath: directory.database)))
    }

    private func overwrite(_ path: String, at offset: UInt64, count: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var generator = SeededRandom(seed: 0xBAD5EED)
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data((0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }))
        try handle.close()
    }

    private func removeSideFiles(_ path: String) {
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test("garbage over the header, then over the pages: storage errors; the restored backup runs on")
    func corruptedFile() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let log = HandlerLog()
        let (id, backup) = try await checkpointedWaitingDatabase(directory, log: log)
        #expect(backup.count >= 4 * 4096)

        try overwrite(directory.database, at: 0, count: 100)
        removeSideFiles(directory.database)
        let header = #expect(throws: StepwiseError.self) { _ = try StepwiseEngine(databasePath: directory.database) }
        expectStorageError(header, reason: "corrupt", path: directory.database, mentioning: ["not a database"])

        try backup.write(to: URL(fileURLWithPath: directory.database))
        try overwrite(directory.database, at: 4096, count: backup.count - 4096)
        removeSideFiles(directory.database)
        // Page 1 (header and schema root) is intact, so the failure comes with the first read of
        // a damaged page: opening (recovery reads every live instance) or the first query.
        var pageError: StepwiseError?
        do {
            let engine = try StepwiseEngine(databasePath: directory.database)
            do { _ = try await engine.instances() } catch { pageError = error }
            await engine.shutdown()
        } catch {
            pageError = error
        }
        let error = try #require(pageError, "reading damaged pages must fail")
        #expect(error.code == .storage, "\(error)")
        #expect(error.message.contains(directory.database), "\(error.message)")
        #expect(error.context["reason"] == "corrupt", "\(error)")

        // The host restores its backup: the instance continues to the fault-free result.
        try backup.write(to: URL(fileURLWithPath: directory.database))
        removeSideFiles(directory.database)
        let clock = VirtualClock()
        let engine = try await openFaultEngine(store: try SQLiteExecutionStore(path: directory.database), clock: clock, log: log)
        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        try await runToRest(engine, clock: clock)
        try await expectFaultFreeResult(engine, id, log: log, path: directory.database)
        await engine.shutdown()
    }

    @Test("SQLITE_CORRUPT in the middle of a commit and of the reload after it: the instance stays usable")
    func corruptionDuringCommitAndReload() async throws {
        let directory = try FaultTestDirectory()
        defer { directory.cleanup() }
        let faults = StorageFaultSwitch()
        let log = HandlerLog()
        let clock = VirtualClock()
        let (engine, id) = try await waitingInstance(directory, faults: faults, log: log, clock: clock)
        let before = try databaseDump(directory.database)

        // Fails the journal insert of the commit: nothing of the transaction stays.
        faults.fault = .injected(code: 11, sqlPrefixes: ["INSERT INTO journal", "INSERT INTO change_log"])
        let error = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        }
        expectStorageError(error, reason: "corrupt", path: directory.database, mentioning: ["SQLITE_CORRUPT"])
        #expect(try databaseDump(directory.database) == before)
        try await expectStillWaiting(engine, id, dump: before, path: directory.database)
        // Fails the commit and also the reload of the instance the engine does after a failed
        // commit (its in-memory state must not run ahead of what is durable).
        faults.fault = .injected(code: 11, sqlPrefixes: ["INSERT INTO journal", "INSERT INTO change_log", "SELECT"])
        let unreadable = await #expect(throws: StepwiseError.self) {
            try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        }
        #expect(unreadable?.code == .storage)
        let tick = await #expect(throws: StepwiseError.self) { try await engine.instance(id) }
        #expect(tick?.code == .storage)

        faults.fault = .none
        #expect(try databaseDump(directory.database) == before)
        try await engine.completeStep(instanceId: id, stepId: "approve", output: Self.yes)
        try await runToRest(engine, clock: clock)
        try await expectFaultFreeResult(engine, id, log: log, path: directory.database)
        await engine.shutdown()
    }
}

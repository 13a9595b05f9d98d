import Foundation
import Stepwise
import StepwiseSQLite
import Testing

/// A database edited or damaged outside the engine: an unfinished instance whose stored tree or
/// sequence version cannot run is failed at open with the reason (a dead letter, a journal
/// entry), never run into a trap (which would recur at every reopen) nor silently left behind.
@Suite("Damaged stored state: failed with the reason at open, the rest untouched")
struct DamagedStateTests {
    static let flow = #"""
        {"name": "w", "version": 1, "blocks": [
          {"type": "step", "id": "a", "handler": "noop"},
          {"type": "step", "id": "ask", "handler": "noop", "wait_for_input": {"prompt": "ok?", "choices": [{"value": "yes"}]}},
          {"type": "step", "id": "b", "handler": "noop"}
        ]}
        """#

    /// A database holding two instances of `w` waiting at `ask`; returns their ids.
    func prepare(_ path: String) async throws -> (damaged: InstanceID, healthy: InstanceID) {
        let engine = try StepwiseEngine(databasePath: path)
        _ = try await engine.loadSequence(json: Array(Self.flow.utf8))
        let first = try await engine.start("w")
        let second = try await engine.start("w")
        while try await engine.runUntilIdle(maxTicks: 50, timeBudgetMs: 5_000).hasPendingWork {}
        await engine.shutdown()
        return (first, second)
    }

    func edit(_ path: String, _ sql: String) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA foreign_keys = OFF")
        try connection.execute(sql)
    }

    @Test(
        "a stored tree or row value the engine cannot have written fails its instance, naming what is wrong",
        arguments: [
            ("UPDATE nodes SET block_index = 999 WHERE instance_id = $ID AND node_id = 2",
             "execution tree", "node 2 (block 999, list 0, position 1) is not a block of its parent in sequence w v1"),
            ("UPDATE nodes SET parent = 77 WHERE instance_id = $ID AND node_id = 2", "execution tree", "node 2 has no parent before it"),
            ("UPDATE nodes SET position = -1 WHERE instance_id = $ID AND node_id = 1",
             "execution tree", "node 1 (block 0, list 0, position -1) is not a block of its parent in sequence w v1"),
            ("DELETE FROM nodes WHERE instance_id = $ID AND node_id = 0", "execution tree", "node 1 is not the root"),
            ("DELETE FROM nodes WHERE instance_id = $ID AND node_id = 1", "execution tree", "node 1 is missing (the next is 2)"),
            ("DELETE FROM nodes WHERE instance_id = $ID", "execution tree", "it has no nodes"),
            ("UPDATE instances SET state = 'bogus' WHERE id = $ID", "row", "state 'bogus' is not an instance state"),
            ("UPDATE instances SET data = x'00ff' WHERE id = $ID", "row", "data is not a JSON object"),
            ("UPDATE instances SET hooks = 'maybe' WHERE id = $ID", "row", "hooks 'maybe' is not a hook state"),
            ("UPDATE nodes SET state = 'zzz' WHERE instance_id = $ID AND node_id = 2",
             "row", "node 2 has state 'zzz' and phase 'awaitingInput'"),
        ])
    func damaged(edit sql: String, what: String, reason: String) async throws {
        try await withTemporaryDatabaseFile { path in
            let (damaged, healthy) = try await prepare(path)
            try edit(path, sql.replacingOccurrences(of: "$ID", with: "'\(damaged.rawValue)'"))

            let engine = try StepwiseEngine(databasePath: path)
            let snapshot = try await engine.instance(damaged)
            #expect(snapshot.state == .failed)
            let message = try #require(snapshot.error?.message)
            #expect(message == "the stored \(what) of instance \(damaged) is damaged: \(reason)")
            let letters = try await engine.deadLetters().items
            #expect(letters.map(\.instanceId) == [damaged])
            #expect(letters.first?.error.message == message)
            // The other instance is untouched and still runs.
            try await engine.completeStep(instanceId: healthy, stepId: "ask", output: ["value": "yes"])
            while try await engine.runUntilIdle(maxTicks: 50, timeBudgetMs: 5_000).hasPendingWork {}
            #expect(try await engine.instance(healthy).state == .completed)
            await engine.shutdown()

            // Failed once, for good: a reopen does not fail it again.
            let reopened = try StepwiseEngine(databasePath: path)
            #expect(try await reopened.deadLetters().items.count == 1)
            if what == "execution tree" {
                // Redriving cannot repair the file: it says why.
                let refusal = await #expect(throws: StepwiseError.self) { try await reopened.redrive(deadLetterId: letters[0].id) }
                #expect(refusal?.message.contains("is damaged") == true)
            }
            await reopened.shutdown()
        }
    }

    @Test("an instance pinned to a sequence version that is not stored fails with the version named")
    func missingVersion() async throws {
        try await withTemporaryDatabaseFile { path in
            let (damaged, healthy) = try await prepare(path)
            try edit(path, "UPDATE instances SET sequence_version = 42 WHERE id = '\(damaged.rawValue)'")
            let engine = try StepwiseEngine(databasePath: path)
            let failed = try await engine.instances(filter: InstanceFilter(states: [.failed]), limit: 10).items
            #expect(failed.map(\.instanceId) == [damaged])
            #expect(failed.first?.error == "instance \(damaged) cannot run: sequence w v42 is not stored")
            #expect(try await engine.instance(healthy).state == .waiting)
            await engine.shutdown()
        }
    }

    /// Stored times at the edge of their range (an `Int64.min` lifetime start, written by a
    /// damaged file) are compared without overflowing: the engine opens and serves calls.
    @Test("times at the edge of their range do not trap")
    func extremeStoredTimes() async throws {
        try await withTemporaryDatabaseFile { path in
            let (damaged, healthy) = try await prepare(path)
            try edit(path, "UPDATE instances SET lifetime_started_at = -9223372036854775808 WHERE id = '\(damaged.rawValue)'")
            let engine = try StepwiseEngine(databasePath: path)
            #expect(try await engine.instance(damaged).state == .failed)
            #expect(try await engine.instance(damaged).error?.message == "lifetime exceeded")
            #expect(try await engine.instance(healthy).state == .waiting)
            await engine.shutdown()
        }
    }
}

/// Runs `body` with the path of a new database file, removed afterwards with its WAL files.
private func withTemporaryDatabaseFile(_ body: (String) async throws -> Void) async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-damaged-\(UUID().uuidString).db").path
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    try await body(path)
}

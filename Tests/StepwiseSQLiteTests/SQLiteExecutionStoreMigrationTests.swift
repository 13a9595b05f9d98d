import StepwiseExecution
import StepwiseJSON
@testable import StepwiseSQLite
import Testing

/// Databases written by earlier versions of the schema open with their data intact.
@Suite struct SQLiteExecutionStoreMigrationTests {
    static let instanceID = InstanceID(rawValue: "6f1c2d4e-0a1b-4c3d-8e9f-001122334455")!

    /// Builds a version-3 database (instances still WITHOUT ROWID) holding one instance with a
    /// data object large enough to have needed overflow pages there.
    func makeVersion3Database(at path: String) throws {
        let connection = try SQLiteConnection(path: path)
        let version3 = SQLiteMigrator(Array(SQLiteExecutionStore.migrator.migrations.prefix(3)))
        #expect(try version3.migrate(connection) == [1, 2, 3])
        let data = "{\"big\":\"" + String(repeating: "x", count: 3000) + "\"}"
        try connection.transaction {
            try connection.execute(
                "INSERT INTO sequences VALUES ('flow', 1, x'7B7D', 'abc', 'local', 1, 0, 0)", bindings: [])
            try connection.execute(
                """
                INSERT INTO instances (\(SQLiteExecutionStore.instanceColumns))
                VALUES (?, 'flow', 1, 'running', ?, '{}', '{"a":1}', NULL, 0, 0, NULL, NULL, 'key-1', 10, 20, NULL, 10,
                        3, 0, 42, 'none', 2, NULL)
                """,
                bindings: [.text(Self.instanceID.rawValue), .text(data)])
            try connection.execute(
                "INSERT INTO nodes (instance_id, \(SQLiteExecutionStore.nodeColumns)) VALUES (?, 0, NULL, -1, 0, 0, 0, 'running', 'active', 0, NULL, 10, NULL, NULL, NULL)",
                bindings: [.text(Self.instanceID.rawValue)])
        }
    }

    @Test func version3InstancesSurviveTheRowidMigration() throws {
        try withTemporaryDatabase { path in
            try makeVersion3Database(at: path)
            let store = try SQLiteExecutionStore(path: path)
            let loaded = try #require(try store.loadInstance(Self.instanceID))
            #expect(loaded.0.state == .running)
            #expect(loaded.0.data["big"]?.stringValue?.count == 3000)
            #expect(loaded.0.outputs["a"] == .integer(1))
            #expect(loaded.0.dedupKey == "key-1")
            #expect(loaded.0.stepsExecuted == 3)
            #expect(loaded.0.randomSeed == 42)
            #expect(loaded.1.count == 1)
            #expect(try store.instanceHolding(dedupKey: "key-1") == Self.instanceID)

            var updated = loaded.0
            updated.stepsExecuted = 4
            updated.updatedAt = 30
            var batch = StoreBatch()
            batch.instances = [updated]
            try store.commit(batch)
            #expect(try store.loadInstance(Self.instanceID)?.0.stepsExecuted == 4)

            let inspector = try SQLiteConnection(path: path)
            #expect(try inspector.userVersion() == SQLiteExecutionStore.migrator.latestVersion)
            let table = try inspector.queryValue("SELECT sql FROM sqlite_schema WHERE name = 'instances'")?.textValue
            #expect(table?.contains("WITHOUT ROWID") == false)
            let indexes = try inspector.query(
                "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'instances' AND sql IS NOT NULL ORDER BY name")
            #expect(
                indexes == [
                    ["instances_by_finish"], ["instances_by_parent"], ["instances_by_sequence"], ["instances_by_update"],
                    ["instances_live_dedup_key"],
                ])
        }
    }

    @Test func liveDedupKeysStayUniqueAfterTheMigration() throws {
        try withTemporaryDatabase { path in
            try makeVersion3Database(at: path)
            let store = try SQLiteExecutionStore(path: path)
            var other = try #require(try store.loadInstance(Self.instanceID)).0
            other = InstanceRecord(
                id: InstanceID(rawValue: "00000000-0000-4000-8000-000000000001")!, sequence: other.sequence,
                state: .scheduled, data: [:], config: [:], dedupKey: "key-1", createdAt: 40, updatedAt: 40,
                lifetimeStartedAt: 40, randomSeed: 1)
            var batch = StoreBatch()
            batch.instances = [other]
            #expect(throws: StepwiseError.self) { try store.commit(batch) }
        }
    }
}

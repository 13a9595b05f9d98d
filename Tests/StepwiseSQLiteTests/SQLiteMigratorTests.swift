import StepwiseSQLite
import Testing

@Suite struct SQLiteMigratorTests {
    let migrations = [
        SQLiteMigration(version: 1, name: "create log", sql: "CREATE TABLE log(entry TEXT NOT NULL)"),
        SQLiteMigration(version: 2, name: "log two", sql: "INSERT INTO log VALUES ('two')"),
        SQLiteMigration(version: 5, name: "log five") { connection in
            try connection.execute("INSERT INTO log VALUES (?)", bindings: ["five"])
        },
    ]

    @Test func appliesMigrationsInOrder() throws {
        try withTemporaryDatabase { path in
            let connection = try SQLiteConnection(path: path)
            let recorder = StatementRecorder(connection)
            let migrator = SQLiteMigrator(migrations)
            #expect(migrator.latestVersion == 5)
            #expect(try migrator.migrate(connection) == [1, 2, 5])
            #expect(try connection.userVersion() == 5)
            #expect(try connection.query("SELECT entry FROM log ORDER BY rowid") == [["two"], ["five"]])
            #expect(recorder.statements.filter { $0 == "BEGIN IMMEDIATE" }.count == 3)
            #expect(recorder.statements.filter { $0 == "COMMIT" }.count == 3)
        }
    }

    @Test func migratingTwiceDoesNothing() throws {
        try withTemporaryDatabase { path in
            do {
                let connection = try SQLiteConnection(path: path)
                try SQLiteMigrator(migrations).migrate(connection)
            }
            let connection = try SQLiteConnection(path: path)
            #expect(try SQLiteMigrator(migrations).migrate(connection) == [])
            #expect(try connection.userVersion() == 5)
            #expect(try rowCount(connection, "log") == 2)
        }
    }

    @Test func appliesOnlyNewerMigrations() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        #expect(try SQLiteMigrator(Array(migrations.prefix(1))).migrate(connection) == [1])
        #expect(try connection.userVersion() == 1)
        #expect(try SQLiteMigrator(migrations).migrate(connection) == [2, 5])
        #expect(try connection.userVersion() == 5)
    }

    @Test func refusesDatabaseFromNewerApp() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.setUserVersion(9)
        let recorder = StatementRecorder(connection)
        let error = #expect(throws: SQLiteMigrationError.self) {
            try SQLiteMigrator(migrations).migrate(connection)
        }
        #expect(error?.code == .databaseIsNewer)
        #expect(error?.databaseVersion == 9)
        #expect(error?.latestKnownVersion == 5)
        #expect(error?.description.contains("newer version of the app") == true)
        #expect(try connection.userVersion() == 9)
        #expect(!recorder.statements.contains { $0.hasPrefix("BEGIN") })
    }

    @Test func failingMigrationLeavesVersionAtLastSuccess() throws {
        try withTemporaryDatabase { path in
            let connection = try SQLiteConnection(path: path)
            let failing = SQLiteMigrator([
                migrations[0],
                SQLiteMigration(version: 2, name: "half done", sql: """
                    CREATE TABLE extra(x);
                    INSERT INTO missing_table VALUES (1);
                    """),
                SQLiteMigration(version: 3, name: "never reached", sql: "CREATE TABLE later(x)"),
            ])
            let error = #expect(throws: SQLiteMigrationError.self) {
                try failing.migrate(connection)
            }
            #expect(error?.code == .migrationFailed)
            #expect(error?.migrationVersion == 2)
            #expect(error?.migrationName == "half done")
            #expect(error?.databaseVersion == 1)
            #expect((error?.underlyingError as? SQLiteError)?.message == "no such table: missing_table")
            #expect(error?.description.hasPrefix("migration 2 'half done' failed; the database stays at version 1: ") == true)
            #expect(try connection.userVersion() == 1)
            let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            #expect(tables == [["log"]])
        }
    }

    @Test func migrationErrorThrownByClosureIsWrapped() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let migrator = SQLiteMigrator([
            SQLiteMigration(version: 1, name: "refuses") { _ in throw TestFailure(reason: "no") },
        ])
        let error = #expect(throws: SQLiteMigrationError.self) { try migrator.migrate(connection) }
        #expect(error?.underlyingError as? TestFailure == TestFailure(reason: "no"))
        #expect(try connection.userVersion() == 0)
    }

    @Test func emptyMigratorAcceptsNewDatabase() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        #expect(try SQLiteMigrator([]).migrate(connection) == [])
        #expect(SQLiteMigrator([]).latestVersion == 0)
    }

    @Test func unorderedVersionsAreAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            _ = SQLiteMigrator([
                SQLiteMigration(version: 2, name: "b", sql: ""),
                SQLiteMigration(version: 1, name: "a", sql: ""),
            ])
        }
    }
}

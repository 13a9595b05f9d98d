import Foundation
import StepwiseSQLite
import Synchronization
import Testing

@Suite struct SQLiteConnectionTests {
    @Test func openingCreatesTheFile() throws {
        try withTemporaryDatabase { path in
            #expect(!FileManager.default.fileExists(atPath: path))
            let connection = try SQLiteConnection(path: path)
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(connection.path == path)
            #expect(!connection.isInTransaction)
        }
    }

    @Test func journalModeIsWAL() throws {
        try withTemporaryDatabase { path in
            let connection = try SQLiteConnection(path: path)
            #expect(try connection.queryValue("PRAGMA journal_mode") == "wal")
        }
    }

    @Test func inMemoryDatabaseReportsMemoryJournal() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        #expect(try connection.queryValue("PRAGMA journal_mode") == "memory")
        try connection.execute("CREATE TABLE t(x)")
        #expect(try rowCount(connection, "t") == 0)
    }

    @Test(arguments: [
        (SQLiteConnection.Durability.normal, Int64(1)),
        (SQLiteConnection.Durability.full, Int64(2)),
    ])
    func synchronousFollowsDurability(durability: SQLiteConnection.Durability, expected: Int64) throws {
        try withTemporaryDatabase { path in
            let connection = try SQLiteConnection(
                path: path,
                configuration: SQLiteConnection.Configuration(durability: durability)
            )
            #expect(try connection.queryValue("PRAGMA synchronous")?.int64Value == expected)
        }
    }

    @Test func defaultPragmasAreApplied() throws {
        try withTemporaryDatabase { path in
            let connection = try SQLiteConnection(path: path)
            #expect(connection.configuration == SQLiteConnection.Configuration())
            #expect(try connection.queryValue("PRAGMA busy_timeout") == 5000)
            #expect(try connection.queryValue("PRAGMA foreign_keys") == 1)
            #expect(try connection.queryValue("PRAGMA synchronous") == 2)
            // FAST (2) whatever the build's default: deletions cost no extra page writes.
            #expect(try connection.queryValue("PRAGMA secure_delete") == 2)
        }
    }

    @Test func customBusyTimeoutAndForeignKeys() throws {
        try withTemporaryDatabase { path in
            let configuration = SQLiteConnection.Configuration(
                busyTimeout: .milliseconds(1234),
                enforcesForeignKeys: false
            )
            let connection = try SQLiteConnection(path: path, configuration: configuration)
            #expect(try connection.queryValue("PRAGMA busy_timeout") == 1234)
            #expect(try connection.queryValue("PRAGMA foreign_keys") == 0)
        }
    }

    @Test func foreignKeysAreEnforced() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("""
            CREATE TABLE parents(id INTEGER PRIMARY KEY);
            CREATE TABLE children(parent INTEGER NOT NULL REFERENCES parents(id));
            """)
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute("INSERT INTO children(parent) VALUES (?)", bindings: [7])
        }
        #expect(error?.isConstraint == true)
        #expect(error?.codeName == "SQLITE_CONSTRAINT_FOREIGNKEY")
    }

    @Test func scriptRunsEveryStatement() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("""
            -- a comment first
            CREATE TABLE a(x);
            CREATE TABLE b(y);
            INSERT INTO a VALUES (1); INSERT INTO a VALUES (2);
            SELECT * FROM a;   -- rows are ignored
            /* trailing comment */
            """)
        #expect(try rowCount(connection, "a") == 2)
        #expect(try rowCount(connection, "b") == 0)
        try connection.execute("")
        try connection.execute("  ;  ")
    }

    @Test func scriptErrorNamesTheFailingStatement() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute("CREATE TABLE a(x); INSERT INTO missing VALUES (1); CREATE TABLE c(z);")
        }
        #expect(error?.message == "no such table: missing")
        #expect(error?.sql?.hasPrefix("INSERT INTO missing VALUES (1);") == true)
        // Statements before the failure ran; those after did not.
        #expect(try rowCount(connection, "a") == 0)
        #expect(throws: SQLiteError.self) { try rowCount(connection, "c") }
    }

    @Test func lastInsertRowIDAndChanges() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
        try connection.execute("INSERT INTO t(id, x) VALUES (?, ?)", bindings: [41, "a"])
        #expect(connection.lastInsertRowID == 41)
        try connection.execute("INSERT INTO t(x) VALUES (?)", bindings: ["b"])
        #expect(connection.lastInsertRowID == 42)
        try connection.execute("UPDATE t SET x = 'c'", bindings: [])
        #expect(connection.changes == 2)
        #expect(connection.totalChanges == 4)
    }

    @Test func userVersionRoundTrips() throws {
        try withTemporaryDatabase { path in
            do {
                let connection = try SQLiteConnection(path: path)
                #expect(try connection.userVersion() == 0)
                try connection.setUserVersion(42)
                #expect(try connection.userVersion() == 42)
            }
            let reopened = try SQLiteConnection(path: path)
            #expect(try reopened.userVersion() == 42)
        }
    }

    @Test func writingToReadOnlyConnectionFails() throws {
        try withTemporaryDatabase { path in
            do {
                let writer = try SQLiteConnection(path: path)
                try writer.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
            }
            let reader = try SQLiteConnection(
                path: path,
                configuration: SQLiteConnection.Configuration(isReadOnly: true)
            )
            #expect(try rowCount(reader, "t") == 1)
            let error = #expect(throws: SQLiteError.self) {
                try reader.execute("INSERT INTO t VALUES (?)", bindings: [2])
            }
            #expect(error?.isReadOnly == true)
            #expect(error?.sql == "INSERT INTO t VALUES (?)")
        }
    }

    @Test func readOnlyOpenOfMissingFileFails() throws {
        try withTemporaryDatabase { path in
            let error = #expect(throws: SQLiteError.self) {
                _ = try SQLiteConnection(path: path, configuration: SQLiteConnection.Configuration(isReadOnly: true))
            }
            #expect(error?.code == 14)  // SQLITE_CANTOPEN
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func fileOfRandomBytesIsCorruptAtOpen() throws {
        try withTemporaryDatabase { path in
            var generator = SystemRandomNumberGenerator()
            let bytes = (0..<8192).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let error = #expect(throws: SQLiteError.self) {
                _ = try SQLiteConnection(path: path)
            }
            #expect(error?.isCorrupt == true)
            #expect(error?.codeName == "SQLITE_NOTADB")
            #expect(error?.description.contains("file is not a database") == true)
        }
    }

    @Test func secondWriterGetsBusyAfterTimeout() throws {
        try withTemporaryDatabase { path in
            let holder = try SQLiteConnection(path: path)
            try holder.execute("CREATE TABLE t(x)")
            let waiter = try SQLiteConnection(
                path: path,
                configuration: SQLiteConnection.Configuration(busyTimeout: .milliseconds(50))
            )
            try holder.execute("BEGIN IMMEDIATE")
            defer { try? holder.execute("ROLLBACK") }

            let clock = ContinuousClock()
            let start = clock.now
            let error = #expect(throws: SQLiteError.self) {
                try waiter.execute("INSERT INTO t VALUES (?)", bindings: [1])
            }
            let waited = clock.now - start
            #expect(error?.isBusy == true)
            #expect(error?.isLocked == false)
            #expect(waited >= .milliseconds(40))
            #expect(waited < .seconds(3))
            // Readers are not blocked by the writer in WAL mode.
            #expect(try rowCount(waiter, "t") == 0)
        }
    }

    @Test func interruptFromTheConnectionsOwnThread() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let statement = try connection.makeStatement(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"
        )
        var seen = 0
        let error = #expect(throws: SQLiteError.self) {
            try statement.forEachRow { _ in
                seen += 1
                if seen == 10 {
                    connection.interrupt()
                }
            }
        }
        #expect(error?.isInterrupted == true)
        #expect(seen == 10)
        // The connection works normally afterwards.
        #expect(try connection.queryValue("SELECT 1") == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func interruptFromAnotherThread() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let handle = connection.interruptHandle
        let finished = Finished()
        Thread.detachNewThread {
            while !finished.isSet {
                handle.interrupt()
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        defer { finished.set() }
        let error = #expect(throws: SQLiteError.self) {
            _ = try connection.queryValue(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000000) SELECT count(*) FROM c"
            )
        }
        #expect(error?.isInterrupted == true)
    }

    @Test func interruptHandleOutlivingItsConnectionDoesNothing() throws {
        var connection: SQLiteConnection? = try SQLiteConnection(path: ":memory:")
        let handle = try #require(connection?.interruptHandle)
        connection = nil
        handle.interrupt()
        #expect(connection == nil)
    }
}

/// A flag shared with a helper thread.
private final class Finished: Sendable {
    private let flag = Mutex(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}

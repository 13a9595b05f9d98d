import StepwiseSQLite
import Testing

@Suite struct SQLiteTransactionTests {
    @Test(arguments: SQLiteConnection.TransactionKind.allCases)
    func commitIsVisibleToOtherConnections(kind: SQLiteConnection.TransactionKind) throws {
        try withTemporaryDatabase { path in
            let writer = try SQLiteConnection(path: path)
            let reader = try SQLiteConnection(path: path)
            try writer.execute("CREATE TABLE t(x)")
            let recorder = StatementRecorder(writer)
            let result = try writer.transaction(kind) {
                #expect(writer.isInTransaction)
                try writer.execute("INSERT INTO t VALUES (?)", bindings: [1])
                return "done"
            }
            #expect(result == "done")
            #expect(!writer.isInTransaction)
            #expect(try rowCount(reader, "t") == 1)
            let begin = switch kind {
            case .deferred: "BEGIN DEFERRED"
            case .immediate: "BEGIN IMMEDIATE"
            case .exclusive: "BEGIN EXCLUSIVE"
            }
            #expect(recorder.statements == [begin, "INSERT INTO t VALUES (?)", "COMMIT"])
        }
    }

    @Test func throwingBodyRollsBack() throws {
        try withTemporaryDatabase { path in
            let connection = try SQLiteConnection(path: path)
            try connection.execute("CREATE TABLE t(x)")
            let recorder = StatementRecorder(connection)
            #expect(throws: TestFailure(reason: "abandon")) {
                try connection.transaction {
                    try connection.execute("INSERT INTO t VALUES (?)", bindings: [1])
                    try connection.execute("INSERT INTO t VALUES (?)", bindings: [2])
                    throw TestFailure(reason: "abandon")
                }
            }
            #expect(recorder.statements.last == "ROLLBACK")
            #expect(!recorder.statements.contains("COMMIT"))
            #expect(!connection.isInTransaction)
            #expect(try rowCount(connection, "t") == 0)
            let reopened = try SQLiteConnection(path: path)
            #expect(try rowCount(reopened, "t") == 0)
        }
    }

    @Test func failingStatementRollsBackEarlierWrites() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(x UNIQUE)")
        let recorder = StatementRecorder(connection)
        let error = #expect(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (?)", bindings: [1])
                try connection.execute("INSERT INTO t VALUES (?)", bindings: [1])
            }
        }
        #expect(error?.isConstraint == true)
        #expect(recorder.statements.last == "ROLLBACK")
        #expect(try rowCount(connection, "t") == 0)
    }

    @Test func nestedTransactionIsRefused() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(x)")
        let recorder = StatementRecorder(connection)
        try connection.transaction {
            try connection.execute("INSERT INTO t VALUES (?)", bindings: [1])
            let error = #expect(throws: SQLiteError.self) {
                try connection.transaction(.deferred) {
                    try connection.execute("INSERT INTO t VALUES (?)", bindings: [2])
                }
            }
            #expect(error?.isMisuse == true)
            #expect(error?.message == "cannot start a transaction within a transaction")
            #expect(connection.isInTransaction)
        }
        // The refused inner call neither ran its body nor disturbed the outer transaction.
        #expect(try connection.query("SELECT x FROM t") == [[1]])
        #expect(recorder.statements.filter { $0.hasPrefix("BEGIN") }.count == 1)
        #expect(!recorder.statements.contains("ROLLBACK"))
    }

    @Test func transactionAfterManualBeginIsRefused() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("BEGIN")
        let error = #expect(throws: SQLiteError.self) { try connection.transaction {} }
        #expect(error?.isMisuse == true)
        try connection.execute("ROLLBACK")
        try connection.transaction {}
    }

    @Test func failedCommitRollsBack() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("""
            CREATE TABLE parents(id INTEGER PRIMARY KEY);
            CREATE TABLE children(parent INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED);
            """)
        let recorder = StatementRecorder(connection)
        // A deferred foreign key is checked at COMMIT, which then fails and leaves the
        // transaction open: transaction(_:_:) must roll it back.
        let error = #expect(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO children(parent) VALUES (?)", bindings: [1])
            }
        }
        #expect(error?.isConstraint == true)
        #expect(error?.sql == "COMMIT")
        #expect(Array(recorder.statements.suffix(2)) == ["COMMIT", "ROLLBACK"])
        #expect(!connection.isInTransaction)
        #expect(try rowCount(connection, "children") == 0)
    }

    @Test func savepointUndoesOnlyItsOwnWork() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(x)")
        let recorder = StatementRecorder(connection)
        try connection.transaction {
            try connection.execute("INSERT INTO t VALUES (?)", bindings: [1])
            #expect(throws: TestFailure()) {
                try connection.savepoint("inner \"one\"") {
                    try connection.execute("INSERT INTO t VALUES (?)", bindings: [2])
                    throw TestFailure()
                }
            }
            let kept = try connection.savepoint("kept") {
                try connection.execute("INSERT INTO t VALUES (?)", bindings: [3])
                return 3
            }
            #expect(kept == 3)
        }
        #expect(try connection.query("SELECT x FROM t ORDER BY x") == [[1], [3]])
        #expect(recorder.statements.contains(#"ROLLBACK TO "inner ""one""""#))
        #expect(recorder.statements.contains(#"RELEASE "kept""#))
    }

    @Test func savepointOutsideTransactionIsRefused() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let error = #expect(throws: SQLiteError.self) {
            try connection.savepoint("alone") {}
        }
        #expect(error?.isMisuse == true)
    }
}

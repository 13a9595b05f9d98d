import StepwiseSQLite
import Testing

@Suite struct SQLiteFaultInjectionTests {
    @Test func faultBeforeCommitLeavesNothingCommitted() throws {
        try withTemporaryDatabase { path in
            do {
                let connection = try SQLiteConnection(path: path)
                try connection.execute("CREATE TABLE t(x)")
                let recorder = StatementRecorder(connection)
                connection.faultInjector = { (point) throws(SQLiteError) in
                    if point == .commit {
                        throw SQLiteError.injectedFault("power cut before commit")
                    }
                }
                let error = #expect(throws: SQLiteError.self) {
                    try connection.transaction {
                        try connection.execute("INSERT INTO t VALUES (?)", bindings: [1])
                    }
                }
                #expect(error?.isIOError == true)
                #expect(error?.message == "power cut before commit")
                #expect(!recorder.statements.contains("COMMIT"))
                #expect(recorder.statements.last == "ROLLBACK")
                #expect(!connection.isInTransaction)
                connection.faultInjector = nil
                #expect(try rowCount(connection, "t") == 0)
            }
            let reopened = try SQLiteConnection(path: path)
            #expect(try rowCount(reopened, "t") == 0)
        }
    }

    @Test func faultPointsCountCommitBoundaries() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(x)")
        var points: [SQLiteFaultPoint] = []
        connection.faultInjector = { points.append($0) }
        for value in 1...3 {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (?)", bindings: [.integer(Int64(value))])
            }
        }
        #expect(points.filter { $0 == .commit }.count == 3)
        #expect(points.filter { $0 == .didCommit }.count == 3)
        #expect(Array(points.prefix(3)) == [.step(sql: "INSERT INTO t VALUES (?)"), .commit, .didCommit])
    }

    @Test func faultAtNthCommitKeepsEarlierCommits() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(x)")
        var commits = 0
        connection.faultInjector = { (point) throws(SQLiteError) in
            if point == .commit {
                commits += 1
                if commits == 3 { throw SQLiteError.injectedFault() }
            }
        }
        for value in 1...5 {
            try? connection.transaction {
                try connection.execute("INSERT INTO t VALUES (?)", bindings: [.integer(Int64(value))])
            }
        }
        #expect(commits == 5)
        #expect(try connection.query("SELECT x FROM t ORDER BY x") == [[1], [2], [4], [5]])
    }

    @Test func faultOnStepFailsTheStatement() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(x)")
        connection.faultInjector = { (point) throws(SQLiteError) in
            if case .step(let sql) = point, sql.hasPrefix("INSERT") {
                throw SQLiteError.injectedFault("disk full", extendedCode: 13)
            }
        }
        let error = #expect(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (?)", bindings: [1])
            }
        }
        #expect(error?.isFull == true)
        #expect(!connection.isInTransaction)
        #expect(try rowCount(connection, "t") == 0)
        // Script statements are reported too.
        #expect(throws: SQLiteError.self) { try connection.execute("INSERT INTO t VALUES (2)") }
        #expect(try rowCount(connection, "t") == 0)
    }

    @Test func faultAfterCommitIsReportedButDataIsDurable() throws {
        try withTemporaryDatabase { path in
            let connection = try SQLiteConnection(path: path)
            try connection.execute("CREATE TABLE t(x)")
            connection.faultInjector = { (point) throws(SQLiteError) in
                if point == .didCommit { throw SQLiteError.injectedFault("crash after commit") }
            }
            #expect(throws: SQLiteError.self) {
                try connection.transaction {
                    try connection.execute("INSERT INTO t VALUES (?)", bindings: [1])
                }
            }
            let other = try SQLiteConnection(path: path)
            #expect(try rowCount(other, "t") == 1)
        }
    }
}

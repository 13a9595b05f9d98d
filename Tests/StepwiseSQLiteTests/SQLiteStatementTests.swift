import StepwiseSQLite
import Testing

@Suite struct SQLiteStatementTests {
    let connection: SQLiteConnection

    init() throws {
        connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE v(id INTEGER PRIMARY KEY, value)")
    }

    /// Inserts `value` through `bind` and reads it back through `read`.
    private func roundTrip<T>(
        _ bind: (SQLiteStatement) throws -> Void,
        _ read: (SQLiteStatement) -> T
    ) throws -> T {
        try connection.execute("DELETE FROM v")
        let insert = try connection.cachedStatement("INSERT INTO v(id, value) VALUES (1, :value)")
        try bind(insert)
        try insert.execute()
        let select = try connection.cachedStatement("SELECT value FROM v WHERE id = 1")
        #expect(try select.step())
        defer { select.reset() }
        return read(select)
    }

    @Test(arguments: [Int64.min, -1, 0, 1, (1 << 53) + 1, Int64.max] as [Int64])
    func int64RoundTrips(value: Int64) throws {
        #expect(try roundTrip({ try $0.bind(value, at: 1) }, { $0.int64(at: 0) }) == value)
        #expect(try roundTrip({ try $0.bind(value, named: ":value") }, { $0.value(at: 0) }) == .integer(value))
    }

    @Test func intAndBoolRoundTrip() throws {
        #expect(try roundTrip({ try $0.bind(Int.max, at: 1) }, { $0.int(at: 0) }) == Int.max)
        #expect(try roundTrip({ try $0.bind(true, at: 1) }, { $0.bool(at: 0) }) == true)
        #expect(try roundTrip({ try $0.bind(false, at: 1) }, { $0.value(at: 0) }) == .integer(0))
        #expect(try roundTrip({ try $0.bind(true, named: ":value") }, { $0.int64(at: 0) }) == 1)
    }

    @Test(arguments: [0.0, -0.0, 1.5, -2.25e-308, 1e308, Double.infinity, -Double.infinity, .pi])
    func doubleRoundTrips(value: Double) throws {
        let read = try roundTrip({ try $0.bind(value, at: 1) }, { $0.double(at: 0) })
        #expect(read == value)
        #expect(read.sign == value.sign)
        #expect(try roundTrip({ try $0.bind(value, named: ":value") }, { $0.value(at: 0) }) == .real(value))
    }

    @Test(arguments: [
        "",
        "plain ascii",
        "caf\u{E9} / cafe\u{301}",
        "日本語のテキスト",
        "emoji 👩‍👩‍👧‍👦 🇫🇷",
        "nul\u{0}inside",
        "quote ' and \" and ; DROP TABLE v; --",
        String(repeating: "long ✓ ", count: 100_000),
    ])
    func textRoundTrips(value: String) throws {
        #expect(try roundTrip({ try $0.bind(value, at: 1) }, { $0.text(at: 0) }) == value)
        #expect(try roundTrip({ try $0.bind(value, named: ":value") }, { $0.value(at: 0) }) == .text(value))
        #expect(try roundTrip({ try $0.bind(value, at: 1) }, { $0.isNull(at: 0) }) == false)
    }

    @Test func largeBlobRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(4 << 20)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        #expect(try roundTrip({ try $0.bind(bytes, at: 1) }, { $0.blob(at: 0) }) == bytes)
        #expect(try roundTrip({ try $0.bind(bytes, named: ":value") }, { $0.value(at: 0) }) == .blob(bytes))
        let count = try roundTrip({ try $0.bind(bytes, at: 1) }, { statement in
            statement.withUnsafeBytes(at: 0) { $0.count }
        })
        #expect(count == bytes.count)
    }

    @Test func emptyBlobIsNotNull() throws {
        #expect(try roundTrip({ try $0.bind([UInt8](), at: 1) }, { $0.value(at: 0) }) == .blob([]))
        #expect(try roundTrip({ try $0.bind("", at: 1) }, { $0.value(at: 0) }) == .text(""))
    }

    @Test func nullRoundTripsAndReadsAsZeroValues() throws {
        #expect(try roundTrip({ try $0.bindNull(at: 1) }, { $0.isNull(at: 0) }))
        #expect(try roundTrip({ try $0.bindNull(named: ":value") }, { $0.value(at: 0) }) == .null)
        #expect(try roundTrip({ try $0.bind(nil, at: 1) }, { $0.int64(at: 0) }) == 0)
        #expect(try roundTrip({ try $0.bind(SQLiteValue.null, at: 1) }, { $0.text(at: 0) }) == "")
        #expect(try roundTrip({ try $0.bind(SQLiteValue(nil as String?), at: 1) }, { $0.blob(at: 0) }) == [])
    }

    @Test(arguments: [
        SQLiteValue.null, .integer(-7), .real(0.5), .text("τ"), .blob([0, 1, 255]),
        SQLiteValue(Optional(Int64(3))), SQLiteValue(true),
    ])
    func sqliteValueRoundTrips(value: SQLiteValue) throws {
        #expect(try roundTrip({ try $0.bind(value, at: 1) }, { $0.value(at: 0) }) == value)
        #expect(try roundTrip({ try $0.bind(value, named: ":value") }, { $0.value(at: 0) }) == value)
    }

    @Test func bindingByEveryNamePrefix() throws {
        let statement = try connection.makeStatement("SELECT :a, @b, $c, ?4")
        #expect(statement.parameterCount == 4)
        try statement.bind(1, named: ":a")
        try statement.bind("two", named: "@b")
        try statement.bind(3.0, named: "$c")
        try statement.bind([4], at: 4)
        #expect(try statement.fetchFirst() == [1, "two", 3.0, .blob([4])])
        let error = #expect(throws: SQLiteError.self) { try statement.bind(1, named: ":missing") }
        #expect(error?.message == "no parameter named :missing")
    }

    @Test func bindingArrayMustMatchParameterCount() throws {
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute("INSERT INTO v(id, value) VALUES (?, ?)", bindings: [1])
        }
        #expect(error?.code == 25)  // SQLITE_RANGE
        #expect(error?.message == "expected 2 bindings, got 1")
    }

    @Test func forEachRowAndColumnMetadata() throws {
        try connection.execute("INSERT INTO v(id, value) VALUES (1, 'a'), (2, 'b'), (3, NULL)")
        let statement = try connection.cachedStatement("SELECT id, value AS label FROM v ORDER BY id")
        #expect(statement.columnCount == 2)
        #expect(statement.columnName(at: 1) == "label")
        #expect(statement.isReadOnly)
        var seen: [String] = []
        try statement.forEachRow { row in
            #expect(row.columnCount == 2)
            seen.append("\(row.int64(at: 0)):\(row.isNull(at: 1) ? "-" : row.text(at: 1))")
        }
        #expect(seen == ["1:a", "2:b", "3:-"])
        #expect(try connection.query("SELECT id, value FROM v ORDER BY id") == [[1, "a"], [2, "b"], [3, nil]])
        #expect(try connection.queryValue("SELECT value FROM v WHERE id = ?", bindings: [3]) == .null)
        #expect(try connection.queryValue("SELECT value FROM v WHERE id = ?", bindings: [99]) == nil)
    }

    @Test func forEachRowRethrowsAndResets() throws {
        try connection.execute("INSERT INTO v(id, value) VALUES (1, 'a'), (2, 'b')")
        let statement = try connection.cachedStatement("SELECT id FROM v ORDER BY id")
        #expect(throws: TestFailure()) {
            try statement.forEachRow { _ in throw TestFailure() }
        }
        // Reset: the next run starts from the first row again.
        #expect(try statement.fetchAll() == [[1], [2]])
    }

    @Test func statementCacheReusesStatements() throws {
        let sql = "SELECT value FROM v WHERE id = ?"
        let countBefore = connection.cachedStatementCount
        let first = try connection.cachedStatement(sql)
        let second = try connection.cachedStatement(sql)
        #expect(first === second)
        #expect(connection.cachedStatementCount == countBefore + 1)

        // A checkout clears the previous bindings.
        try connection.execute("INSERT INTO v(id, value) VALUES (1, 'a')")
        try first.bind(1, at: 1)
        #expect(try first.fetchFirst() == ["a"])
        let third = try connection.cachedStatement(sql)
        #expect(try third.fetchFirst() == nil)  // id = NULL matches nothing

        connection.clearStatementCache()
        #expect(connection.cachedStatementCount == 0)
        #expect(try connection.cachedStatement(sql) !== first)
        #expect(try first.fetchFirst() == nil)  // still usable
    }

    @Test func statementCacheReturnsTheRightStatementForManyTexts() throws {
        // Many texts share memo slots; equal texts in different storage share a statement.
        for round in 0..<3 {
            for value in 0..<300 {
                let sql = "SELECT \(value) AS value -- round \(round % 1)"
                #expect(try connection.cachedStatement(sql).fetchFirst() == [.integer(Int64(value))])
                #expect(try connection.cachedStatement(String(decoding: Array(sql.utf8), as: UTF8.self)) === connection.cachedStatement(sql))
            }
        }
        #expect(connection.cachedStatementCount >= 300)
    }

    @Test func nestedUseOfTheSameCachedSQLGetsItsOwnStatement() throws {
        try connection.execute("INSERT INTO v(id, value) VALUES (1, 'a'), (2, 'b')")
        let sql = "SELECT id FROM v ORDER BY id"
        var pairs: [[Int64]] = []
        try connection.cachedStatement(sql).forEachRow { outer in
            let outerID = outer.int64(at: 0)
            try connection.cachedStatement(sql).forEachRow { inner in
                pairs.append([outerID, inner.int64(at: 0)])
            }
        }
        #expect(pairs == [[1, 1], [1, 2], [2, 1], [2, 2]])
    }

    @Test func preparingMoreThanOneStatementIsRefused() throws {
        let error = #expect(throws: SQLiteError.self) {
            _ = try connection.cachedStatement("SELECT 1; SELECT 2")
        }
        #expect(error?.isMisuse == true)
        // Trailing semicolons, whitespace and comments are fine.
        #expect(try connection.cachedStatement("SELECT 1; -- done\n  ").fetchFirst() == [1])
        #expect(throws: SQLiteError.self) { _ = try connection.makeStatement("  ") }
    }

    @Test func syntaxErrorReportsTheSQL() throws {
        let error = #expect(throws: SQLiteError.self) {
            _ = try connection.makeStatement("SELEKT 1")
        }
        #expect(error?.code == 1)
        #expect(error?.sql == "SELEKT 1")
        #expect(error?.message.lowercased().contains("syntax error") == true)
    }

    @Test func tracerSeesSQLButNotBoundValues() throws {
        let recorder = StatementRecorder(connection)
        try connection.execute("INSERT INTO v(id, value) VALUES (?, ?)", bindings: [1, "s3cr3t"])
        _ = try connection.queryValue("SELECT count(*) FROM v")
        #expect(recorder.statements == ["INSERT INTO v(id, value) VALUES (?, ?)", "SELECT count(*) FROM v"])
        connection.statementTracer = nil
        try connection.execute("DELETE FROM v")
        #expect(recorder.statements.count == 2)
    }
}

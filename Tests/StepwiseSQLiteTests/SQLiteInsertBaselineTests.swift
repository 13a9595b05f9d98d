import StepwiseSQLite
import Testing

@Suite struct SQLiteInsertBaselineTests {
    @Test(arguments: SQLiteConnection.Durability.allCases)
    func baselineCommitsEachInsert(durability: SQLiteConnection.Durability) throws {
        try withTemporaryDatabase { path in
            let elapsed = try SQLiteInsertBaseline.measure(path: path, durability: durability, transactions: 25)
            #expect(elapsed > .zero)
            let connection = try SQLiteConnection(path: path)
            #expect(try rowCount(connection, "baseline_inserts") == 25)
            #expect(try connection.queryValue("SELECT length(payload) FROM baseline_inserts LIMIT 1") == 256)
            _ = try SQLiteInsertBaseline.measure(path: path, durability: durability, transactions: 5, payloadSize: 0)
            #expect(try rowCount(connection, "baseline_inserts") == 30)
            // Warm-up transactions commit too; only the others are timed.
            _ = try SQLiteInsertBaseline.measure(path: path, durability: durability, transactions: 2, warmUp: 3)
            #expect(try rowCount(connection, "baseline_inserts") == 35)
        }
    }
}

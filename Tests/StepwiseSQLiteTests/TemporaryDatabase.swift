import Foundation
import StepwiseSQLite

/// Runs `body` with the path of a database file (not created yet) in a fresh temporary
/// directory, and deletes the directory afterwards, WAL and shared-memory files included.
///
/// Open connections inside `body` only, so they are closed before the directory goes.
func withTemporaryDatabase<Result>(_ body: (String) throws -> Result) throws -> Result {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("stepwise-sqlite-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory.appendingPathComponent("test.sqlite").path)
}

/// Collects the SQL text of every statement a connection runs.
final class StatementRecorder {
    private(set) var statements: [String] = []

    /// Starts recording `connection`'s statements.
    init(_ connection: SQLiteConnection) {
        connection.statementTracer = { [weak self] sql in
            self?.statements.append(sql)
        }
    }

    /// Forgets what was recorded so far.
    func clear() {
        statements.removeAll()
    }
}

/// Counts rows of a table.
func rowCount(_ connection: SQLiteConnection, _ table: String) throws -> Int64 {
    try connection.queryValue("SELECT count(*) FROM \(table)")?.int64Value ?? -1
}

/// A failure thrown by test bodies.
struct TestFailure: Error, Equatable {
    var reason = "test failure"
}

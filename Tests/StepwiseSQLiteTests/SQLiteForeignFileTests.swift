import Foundation
import StepwiseExecution
import StepwiseJSON
import StepwiseSQLite
import Testing

/// A store never changes a file that is not its own: another application's database, a
/// directory or a device is refused before SQLite touches it.
struct SQLiteForeignFileTests {
    @Test func anotherApplicationsDatabaseIsRefusedAndLeftAsItWas() throws {
        try withTemporaryDatabase { path in
            do {
                let connection = try SQLiteConnection(path: path)
                try connection.execute("CREATE TABLE contacts(name TEXT)")
                try connection.execute("INSERT INTO contacts VALUES ('ada')")
            }
            let error = #expect(throws: StepwiseError.self) { _ = try SQLiteExecutionStore(path: path) }
            #expect(error?.code == .storage)
            #expect(error?.context["reason"] == "foreign_database")
            #expect(error?.message.contains("another application") == true)
            let reopened = try SQLiteConnection(path: path)
            #expect(try reopened.queryValue("SELECT name FROM contacts") == "ada")
            #expect(try reopened.queryValue("PRAGMA user_version") == .integer(0), "no migration ran")
        }
    }

    @Test(arguments: ["delete", "wal"])
    func aDatabaseWithASchemaVersionButNotOurTablesIsRefused(_ journalMode: String) throws {
        try withTemporaryDatabase { path in
            do {
                let connection = try SQLiteConnection(path: path, configuration: .init(isReadOnly: false))
                try connection.execute("PRAGMA journal_mode = \(journalMode)")
                try connection.execute("CREATE TABLE contacts(name TEXT)")
                try connection.execute("PRAGMA user_version = 1")
            }
            let error = #expect(throws: StepwiseError.self) { _ = try SQLiteExecutionStore(path: path) }
            #expect(error?.context["reason"] == "foreign_database")
            #expect(error?.message.contains("schema version 1 but not Stepwise's tables") == true)
            let reopened = try SQLiteConnection(path: path, configuration: .init(isReadOnly: true))
            #expect(try reopened.queryValue("PRAGMA user_version") == .integer(1), "no migration ran")
            #expect(try reopened.queryValue("PRAGMA journal_mode")?.textValue == journalMode, "the journal mode is as it was")
        }
    }

    @Test func aNewAndAnExistingStepwiseFileStillOpen() throws {
        try withTemporaryDatabase { path in
            _ = try SQLiteExecutionStore(path: path)
            _ = try SQLiteExecutionStore(path: path)
        }
    }

    @Test(arguments: ["/dev/null", NSTemporaryDirectory()])
    func somethingThatIsNotARegularFileIsRefused(_ path: String) {
        let error = #expect(throws: StepwiseError.self) { _ = try SQLiteExecutionStore(path: path) }
        #expect(error?.context["reason"] == "not_a_file")
    }
}

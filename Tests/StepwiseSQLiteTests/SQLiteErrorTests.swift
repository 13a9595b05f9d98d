import StepwiseSQLite
import Testing

@Suite struct SQLiteErrorTests {
    @Test func constraintViolationDescribesCodeMessageAndSQLButNotValues() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE instances(id INTEGER PRIMARY KEY, dedup_key TEXT UNIQUE)")
        let sql = "INSERT INTO instances(dedup_key) VALUES (?)"
        try connection.execute(sql, bindings: ["secret-token-123"])
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute(sql, bindings: ["secret-token-123"])
        }
        let unwrapped = try #require(error)
        #expect(unwrapped.code == 19)
        #expect(unwrapped.extendedCode == 2067)
        #expect(unwrapped.isConstraint)
        #expect(unwrapped.codeName == "SQLITE_CONSTRAINT_UNIQUE")
        #expect(unwrapped.message == "UNIQUE constraint failed: instances.dedup_key")
        #expect(unwrapped.sql == sql)
        #expect(unwrapped.description == """
            SQLite error 19 (SQLITE_CONSTRAINT_UNIQUE, extended 2067): UNIQUE constraint failed: \
            instances.dedup_key — while running: INSERT INTO instances(dedup_key) VALUES (?)
            """)
        #expect(!unwrapped.description.contains("secret"))
    }

    @Test func descriptionWithoutExtensionOrSQL() {
        let error = SQLiteError(extendedCode: 26, message: "file is not a database")
        #expect(error.description == "SQLite error 26 (SQLITE_NOTADB): file is not a database")
        let unknown = SQLiteError(extendedCode: 99 | (77 << 8), message: "?")
        #expect(unknown.codeName == "SQLITE_UNKNOWN")
        let unknownExtension = SQLiteError(extendedCode: 10 | (99 << 8), message: "?")
        #expect(unknownExtension.codeName == "SQLITE_IOERR")
    }

    @Test(arguments: [
        (Int32(5), "busy"), (517, "busy"), (6, "locked"), (8, "readOnly"), (9, "interrupted"),
        (10, "ioError"), (266, "ioError"), (11, "corrupt"), (26, "corrupt"), (13, "full"),
        (19, "constraint"), (1555, "constraint"), (21, "misuse"), (1, "none"),
    ])
    func classification(extendedCode: Int32, expected: String) {
        let error = SQLiteError(extendedCode: extendedCode, message: "")
        let flags = [
            "busy": error.isBusy, "locked": error.isLocked, "readOnly": error.isReadOnly,
            "interrupted": error.isInterrupted, "ioError": error.isIOError, "corrupt": error.isCorrupt,
            "full": error.isFull, "constraint": error.isConstraint, "misuse": error.isMisuse,
        ]
        #expect(flags.filter(\.value).map(\.key) == (expected == "none" ? [] : [expected]))
    }

    @Test func namesOfCodes() {
        #expect(SQLiteError.name(of: 0) == "SQLITE_OK")
        #expect(SQLiteError.name(of: 5) == "SQLITE_BUSY")
        #expect(SQLiteError.name(of: 1555) == "SQLITE_CONSTRAINT_PRIMARYKEY")
        #expect(SQLiteError.name(of: 8714) == "SQLITE_IOERR_IN_PAGE")
        #expect(SQLiteError.name(of: 12345) == nil)
    }

    @Test func openingInMissingDirectoryFails() {
        let error = #expect(throws: SQLiteError.self) {
            _ = try SQLiteConnection(path: "/nonexistent-\(Int.random(in: 0...Int.max))/db.sqlite")
        }
        #expect(error?.code == 14)
        #expect(error?.codeName.hasPrefix("SQLITE_CANTOPEN") == true)
        #expect(error?.sql == nil)
    }
}

/// One row change of a commit, as the statement and the values it binds.
///
/// The store either executes row writes at once or, for the hot path, appends them to the
/// change log as one record (``SQLiteChangeLog``) and executes them later, coalesced. Both
/// paths bind exactly these values, so a logged write lands as the direct one would have.
struct SQLiteRowWrite: Equatable {
    /// Which statement a write runs. The raw values are stored in the change log: never reuse one.
    enum Statement: UInt8, CaseIterable {
        case upsertInstance = 1
        case upsertNode = 2
        /// A journal entry: sequence, instance, node, kind, step, attempt, at, payload.
        case insertJournal = 3
        case outboxTouchStatus = 4
        case outboxPut = 5
        case outboxDelete = 6
        case commandMarker = 7
        case setMetadata = 8

        /// The SQL, with one `?` per value in order (none for journal entries).
        var sql: String {
            switch self {
            case .upsertInstance: SQLiteExecutionStore.upsertInstanceSQL
            case .upsertNode: SQLiteExecutionStore.upsertNodeSQL
            case .insertJournal: ""  // Written as chunks (writeJournalChunks), never one by one.
            case .outboxTouchStatus:
                """
                INSERT INTO outbox (kind, key, instance_id, generation, created_at) VALUES ('status', ?, ?, 1, ?)
                ON CONFLICT(kind, key) DO UPDATE SET generation = generation + 1
                """
            case .outboxPut:
                """
                INSERT INTO outbox (kind, key, instance_id, generation, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(kind, key) DO UPDATE SET payload = excluded.payload, generation = generation + 1
                """
            case .outboxDelete:
                "DELETE FROM outbox WHERE kind = ? AND key = ? AND (? IS NULL OR generation = ?)"
            case .commandMarker:
                "INSERT INTO command_markers (command_id, outcome, executed_at) VALUES (?, ?, ?) ON CONFLICT(command_id) DO NOTHING"
            case .setMetadata:
                "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
            }
        }

        /// How many values the statement binds.
        var valueCount: Int {
            switch self {
            case .upsertInstance: 23
            case .upsertNode: 15
            case .insertJournal: 8
            case .outboxTouchStatus: 3
            case .outboxPut: 6
            case .outboxDelete: 4
            case .commandMarker: 3
            case .setMetadata: 2
            }
        }

        // The statements are prepared once per connection and found again by their text: keep
        // one String per case so the lookup hashes a stable value.
        static let sqlByRawValue: [UInt8: String] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0.sql) })
    }

    let statement: Statement
    let values: [SQLiteValue]

    /// Runs the write on `connection` (inside the caller's transaction). Not for journal
    /// entries, which are written in chunks.
    func execute(on connection: SQLiteConnection) throws(SQLiteError) {
        precondition(statement != .insertJournal, "journal entries are written as chunks")
        let s = try connection.cachedStatement(Statement.sqlByRawValue[statement.rawValue] ?? statement.sql)
        for (offset, value) in values.enumerated() { try s.bind(value, at: offset + 1) }
        try s.execute()
    }
}

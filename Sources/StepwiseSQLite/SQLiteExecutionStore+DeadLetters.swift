internal import CSQLite
public import StepwiseExecution
import StepwiseJSON

extension SQLiteExecutionStore {
    static let deadLetterColumns = """
        id, instance_id, sequence_name, sequence_version, block_id, handler, error, attempts, failed_at, \
        acknowledged, acknowledged_at, redriven_at
        """

    static func readDeadLetter(_ s: SQLiteStatement) -> DeadLetter {
        DeadLetter(
            id: s.text(at: 0), instanceId: InstanceID(trusted: s.text(at: 1)), sequenceName: s.text(at: 2),
            sequenceVersion: s.int(at: 3), blockId: s.isNull(at: 4) ? nil : s.text(at: 4),
            handler: s.isNull(at: 5) ? nil : s.text(at: 5),
            error: InstanceError(json: decode(s.blob(at: 6))) ?? InstanceError(message: "failed"),
            attempts: s.int(at: 7), failedAt: s.int64(at: 8), acknowledged: s.bool(at: 9),
            acknowledgedAt: s.isNull(at: 10) ? nil : s.int64(at: 10), redrivenAt: s.isNull(at: 11) ? nil : s.int64(at: 11))
    }

    public func deadLetters(unacknowledgedOnly: Bool, limit: Int, after: String?) throws(StepwiseError) -> [DeadLetter] {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot list dead letters") { () throws(SQLiteError) -> [DeadLetter] in
            var clauses: [String] = []
            var bindings: [SQLiteValue] = []
            if unacknowledgedOnly { clauses.append("acknowledged = 0") }
            if let after, let anchor = try deadLetterRow(after) {
                clauses.append("(failed_at < ? OR (failed_at = ? AND id > ?))")
                bindings += [.integer(anchor.failedAt), .integer(anchor.failedAt), .text(anchor.id)]
            }
            let whereClause = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
            let statement = try connection.makeStatement(
                "SELECT \(Self.deadLetterColumns) FROM dead_letters \(whereClause) ORDER BY failed_at DESC, id LIMIT \(max(1, limit))")
            try statement.bind(bindings)
            var result: [DeadLetter] = []
            while try statement.step() { result.append(Self.readDeadLetter(statement)) }
            statement.reset()
            return result
        }
    }

    func deadLetterRow(_ id: String) throws(SQLiteError) -> DeadLetter? {
        let statement = try connection.cachedStatement("SELECT \(Self.deadLetterColumns) FROM dead_letters WHERE id = ?")
        defer { statement.reset() }
        try statement.bind(id, at: 1)
        return try statement.step() ? Self.readDeadLetter(statement) : nil
    }

    public func deadLetter(_ id: String) throws(StepwiseError) -> DeadLetter? {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot read dead letter \(id)") { () throws(SQLiteError) -> DeadLetter? in try deadLetterRow(id) }
    }

    public func deadLetters(ofInstance id: InstanceID) throws(StepwiseError) -> [DeadLetter] {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot list the dead letters of \(id)") { () throws(SQLiteError) -> [DeadLetter] in
            let statement = try connection.cachedStatement(
                "SELECT \(Self.deadLetterColumns) FROM dead_letters WHERE instance_id = ? ORDER BY failed_at DESC, id")
            defer { statement.reset() }
            try statement.bind(id.rawValue, at: 1)
            var result: [DeadLetter] = []
            while try statement.step() { result.append(Self.readDeadLetter(statement)) }
            return result
        }
    }

    public func expiredInstances(finishedBefore cutoff: Int64, limit: Int) throws(StepwiseError) -> [InstanceID] {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot find expired instances") { () throws(SQLiteError) -> [InstanceID] in
            let statement = try connection.cachedStatement(
                """
                SELECT id FROM instances i
                WHERE finished_at IS NOT NULL AND finished_at < ? AND hooks != 'running' AND parent_id IS NULL
                  AND NOT EXISTS (SELECT 1 FROM dead_letters d WHERE d.instance_id = i.id AND d.acknowledged = 0)
                ORDER BY finished_at LIMIT ?
                """)
            defer { statement.reset() }
            try statement.bind(cutoff, at: 1)
            try statement.bind(limit, at: 2)
            var result: [InstanceID] = []
            while try statement.step() { result.append(InstanceID(trusted: statement.text(at: 0))) }
            return result
        }
    }

    func writeDeadLetters(_ batch: StoreBatch) throws(SQLiteError) {
        for letter in batch.deadLetters {
            let s = try connection.cachedStatement(
                """
                INSERT INTO dead_letters (\(Self.deadLetterColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET acknowledged = excluded.acknowledged,
                  acknowledged_at = excluded.acknowledged_at, redriven_at = excluded.redriven_at
                """)
            try s.bind(letter.id, at: 1)
            try s.bind(letter.instanceId.rawValue, at: 2)
            try s.bind(letter.sequenceName, at: 3)
            try s.bind(letter.sequenceVersion, at: 4)
            if let b = letter.blockId { try s.bind(b, at: 5) } else { try s.bindNull(at: 5) }
            if let h = letter.handler { try s.bind(h, at: 6) } else { try s.bindNull(at: 6) }
            try s.bind(Self.encode(letter.error.jsonValue), at: 7)
            try s.bind(letter.attempts, at: 8)
            try s.bind(letter.failedAt, at: 9)
            try s.bind(letter.acknowledged, at: 10)
            if let t = letter.acknowledgedAt { try s.bind(t, at: 11) } else { try s.bindNull(at: 11) }
            if let t = letter.redrivenAt { try s.bind(t, at: 12) } else { try s.bindNull(at: 12) }
            try s.execute()
        }
        for id in batch.deletedDeadLetters {
            let s = try connection.cachedStatement("DELETE FROM dead_letters WHERE id = ?")
            try s.bind(id, at: 1)
            try s.execute()
        }
        for key in batch.deletedSequences {
            let s = try connection.cachedStatement("DELETE FROM sequences WHERE name = ? AND version = ?")
            try s.bind(key.name, at: 1)
            try s.bind(key.version, at: 2)
            try s.execute()
        }
    }
}

extension SQLiteExecutionStore {
    public func isReferenced(_ key: SequenceKey) throws(StepwiseError) -> Bool {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot check references to \(key)") { () throws(SQLiteError) -> Bool in
            let statement = try connection.cachedStatement(
                "SELECT 1 FROM instances WHERE sequence_name = ? AND sequence_version = ? LIMIT 1")
            defer { statement.reset() }
            try statement.bind(key.name, at: 1)
            try statement.bind(key.version, at: 2)
            return try statement.step()
        }
    }
}

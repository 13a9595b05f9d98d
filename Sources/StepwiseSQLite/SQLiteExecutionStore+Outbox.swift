internal import CSQLite
public import StepwiseExecution
import StepwiseJSON

extension SQLiteExecutionStore {
    public func outboxRows(_ kind: OutboxKind, limit: Int) throws(StepwiseError) -> [OutboxRow] {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot read the outbox") { () throws(SQLiteError) -> [OutboxRow] in
            let s = try connection.cachedStatement(
                "SELECT key, instance_id, generation, payload, created_at FROM outbox WHERE kind = ? ORDER BY created_at, key LIMIT ?")
            defer { s.reset() }
            try s.bind(kind.rawValue, at: 1)
            try s.bind(limit, at: 2)
            var rows: [OutboxRow] = []
            while try s.step() {
                rows.append(
                    OutboxRow(
                        kind: kind, key: s.text(at: 0), instanceID: s.isNull(at: 1) ? nil : InstanceID(trusted: s.text(at: 1)),
                        generation: s.int64(at: 2), payload: s.isNull(at: 3) ? .null : Self.decode(s.blob(at: 3)),
                        createdAt: s.int64(at: 4)))
            }
            return rows
        }
    }

    public func commandMarker(_ commandID: String) throws(StepwiseError) -> String? {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot read command markers") { () throws(SQLiteError) -> String? in
            let s = try connection.cachedStatement("SELECT outcome FROM command_markers WHERE command_id = ?")
            defer { s.reset() }
            try s.bind(commandID, at: 1)
            return try s.step() ? s.text(at: 0) : nil
        }
    }

    /// The row writes of a batch's outbox changes and command markers, in order.
    func outboxWrites(_ batch: StoreBatch, now: Int64) -> [SQLiteRowWrite] {
        batch.outbox.map { write in
            switch write {
            case .touchStatus(let id):
                SQLiteRowWrite(statement: .outboxTouchStatus, values: [.text(id.rawValue), .text(id.rawValue), .integer(now)])
            case .put(let row):
                SQLiteRowWrite(
                    statement: .outboxPut,
                    values: [
                        .text(row.kind.rawValue), .text(row.key), row.instanceID.map { .text($0.rawValue) } ?? .null,
                        .integer(row.generation), .blob(Self.encode(row.payload)), .integer(row.createdAt),
                    ])
            case .delete(let kind, let key, let generation):
                SQLiteRowWrite(
                    statement: .outboxDelete,
                    values: [.text(kind.rawValue), .text(key), generation.map(SQLiteValue.integer) ?? .null, generation.map(SQLiteValue.integer) ?? .null])
            case .marker(let id, let outcome):
                SQLiteRowWrite(statement: .commandMarker, values: [.text(id), .text(outcome), .integer(now)])
            }
        }
    }
}

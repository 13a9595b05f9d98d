internal import CSQLite
public import StepwiseExecution
import StepwiseJSON

extension SQLiteExecutionStore {
    public func outboxRows(_ kind: OutboxKind, limit: Int) throws(StepwiseError) -> [OutboxRow] {
        try run("cannot read the outbox") { () throws(SQLiteError) -> [OutboxRow] in
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
        try run("cannot read command markers") { () throws(SQLiteError) -> String? in
            let s = try connection.cachedStatement("SELECT outcome FROM command_markers WHERE command_id = ?")
            defer { s.reset() }
            try s.bind(commandID, at: 1)
            return try s.step() ? s.text(at: 0) : nil
        }
    }

    func writeOutbox(_ batch: StoreBatch, now: Int64) throws(SQLiteError) {
        for write in batch.outbox {
            switch write {
            case .touchStatus(let id):
                let s = try connection.cachedStatement(
                    """
                    INSERT INTO outbox (kind, key, instance_id, generation, created_at) VALUES ('status', ?, ?, 1, ?)
                    ON CONFLICT(kind, key) DO UPDATE SET generation = generation + 1
                    """)
                try s.bind(id.rawValue, at: 1)
                try s.bind(id.rawValue, at: 2)
                try s.bind(now, at: 3)
                try s.execute()
            case .put(let row):
                let s = try connection.cachedStatement(
                    """
                    INSERT INTO outbox (kind, key, instance_id, generation, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(kind, key) DO UPDATE SET payload = excluded.payload, generation = generation + 1
                    """)
                try s.bind(row.kind.rawValue, at: 1)
                try s.bind(row.key, at: 2)
                if let i = row.instanceID { try s.bind(i.rawValue, at: 3) } else { try s.bindNull(at: 3) }
                try s.bind(row.generation, at: 4)
                try s.bind(Self.encode(row.payload), at: 5)
                try s.bind(row.createdAt, at: 6)
                try s.execute()
            case .delete(let kind, let key, let generation):
                let s = try connection.cachedStatement(
                    "DELETE FROM outbox WHERE kind = ? AND key = ? AND (? IS NULL OR generation = ?)")
                try s.bind(kind.rawValue, at: 1)
                try s.bind(key, at: 2)
                if let g = generation {
                    try s.bind(g, at: 3)
                    try s.bind(g, at: 4)
                } else {
                    try s.bindNull(at: 3)
                    try s.bindNull(at: 4)
                }
                try s.execute()
            case .marker(let id, let outcome):
                let s = try connection.cachedStatement(
                    "INSERT INTO command_markers (command_id, outcome, executed_at) VALUES (?, ?, ?) ON CONFLICT(command_id) DO NOTHING")
                try s.bind(id, at: 1)
                try s.bind(outcome, at: 2)
                try s.bind(now, at: 3)
                try s.execute()
            }
        }
    }
}

internal import CSQLite
public import StepwiseExecution
import StepwiseJSON

extension SQLiteExecutionStore {
    public func commit(_ batch: StoreBatch) throws(StepwiseError) {
        do {
            try connection.transaction(.immediate) {
                try write(batch)
            }
        } catch let error as SQLiteError {
            if error.isConstraint {
                throw StepwiseError(.conflict, "the change conflicts with stored data: \(error.message)")
            }
            throw storageError("cannot commit", error)
        } catch let error as StepwiseError {
            throw error
        } catch {
            throw StepwiseError(.storage, "cannot commit: \(error)")
        }
    }

    private func write(_ batch: StoreBatch) throws(SQLiteError) {
        for (stored, bytes) in batch.sequences {
            let s = try connection.cachedStatement(
                """
                INSERT INTO sequences (name, version, bytes, sha256, origin, installed_at, deprecated, retired)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(name, version) DO UPDATE SET deprecated = excluded.deprecated, retired = excluded.retired
                """)
            try s.bind(stored.key.name, at: 1)
            try s.bind(stored.key.version, at: 2)
            try s.bind(bytes, at: 3)
            try s.bind(stored.sha256, at: 4)
            try s.bind(stored.origin, at: 5)
            try s.bind(stored.installedAt, at: 6)
            try s.bind(stored.isDeprecated, at: 7)
            try s.bind(stored.isRetired, at: 8)
            try s.execute()
        }
        for record in batch.instances { try upsert(record) }
        for (instance, nodes) in batch.nodes {
            for node in nodes { try upsert(node, of: instance) }
        }
        if !batch.journal.isEmpty {
            let s = try connection.cachedStatement(
                "INSERT INTO journal (instance_id, node_id, kind, step_id, attempt, at, payload) VALUES (?, ?, ?, ?, ?, ?, ?)")
            for entry in batch.journal {
                try s.bind(entry.instance.rawValue, at: 1)
                if let node = entry.node { try s.bind(node.rawValue, at: 2) } else { try s.bindNull(at: 2) }
                try s.bind(entry.kind.rawValue, at: 3)
                if let step = entry.stepID { try s.bind(step, at: 4) } else { try s.bindNull(at: 4) }
                if let attempt = entry.attempt { try s.bind(attempt, at: 5) } else { try s.bindNull(at: 5) }
                try s.bind(entry.at, at: 6)
                try s.bind(Self.encode(entry.payload), at: 7)
                try s.execute()
            }
        }
        for id in batch.deletedInstances {
            for sql in [
                "DELETE FROM journal WHERE instance_id = ?", "DELETE FROM nodes WHERE instance_id = ?",
                "DELETE FROM dead_letters WHERE instance_id = ?", "DELETE FROM outbox WHERE instance_id = ?",
                "DELETE FROM instances WHERE id = ?",
            ] {
                let s = try connection.cachedStatement(sql)
                try s.bind(id.rawValue, at: 1)
                try s.execute()
            }
        }
        try writeDeadLetters(batch)
        try writeOutbox(batch, now: batch.now)
        for (key, value) in batch.metadata {
            let s = try connection.cachedStatement(
                "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            try s.bind(key, at: 1)
            try s.bind(value, at: 2)
            try s.execute()
        }
    }

    // The upserts run several times per commit: as `static let`s their text keeps one address,
    // so the statement cache finds them without hashing the interpolated SQL on every call.
    private static let upsertInstanceSQL = """
        INSERT INTO instances (\(instanceColumns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET state = excluded.state, data = excluded.data, config = excluded.config,
          outputs = excluded.outputs, error = excluded.error, cancel_requested = excluded.cancel_requested,
          paused = excluded.paused, dedup_key = excluded.dedup_key, updated_at = excluded.updated_at,
          finished_at = excluded.finished_at, lifetime_started_at = excluded.lifetime_started_at,
          steps_executed = excluded.steps_executed, hooks = excluded.hooks, next_node_id = excluded.next_node_id,
          precompleted = excluded.precompleted
        """

    private static let upsertNodeSQL = """
        INSERT INTO nodes (instance_id, \(nodeColumns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(instance_id, node_id) DO UPDATE SET state = excluded.state, phase = excluded.phase,
          attempt = excluded.attempt, due_at = excluded.due_at, started_at = excluded.started_at,
          finished_at = excluded.finished_at, error = excluded.error, progress = excluded.progress
        """

    private func upsert(_ r: InstanceRecord) throws(SQLiteError) {
        let s = try connection.cachedStatement(Self.upsertInstanceSQL)
        try s.bind(r.id.rawValue, at: 1)
        try s.bind(r.sequence.name, at: 2)
        try s.bind(r.sequence.version, at: 3)
        try s.bind(r.state.rawValue, at: 4)
        try s.bind(Self.encode(.object(r.data)), at: 5)
        try s.bind(Self.encode(.object(r.config)), at: 6)
        try s.bind(Self.encode(.object(r.outputs)), at: 7)
        if let error = r.error { try s.bind(Self.encode(error.jsonValue), at: 8) } else { try s.bindNull(at: 8) }
        try s.bind(r.cancelRequested, at: 9)
        try s.bind(r.isPaused, at: 10)
        if let p = r.parentInstance { try s.bind(p.rawValue, at: 11) } else { try s.bindNull(at: 11) }
        if let n = r.parentNode { try s.bind(n.rawValue, at: 12) } else { try s.bindNull(at: 12) }
        if let k = r.dedupKey { try s.bind(k, at: 13) } else { try s.bindNull(at: 13) }
        try s.bind(r.createdAt, at: 14)
        try s.bind(r.updatedAt, at: 15)
        if let f = r.finishedAt { try s.bind(f, at: 16) } else { try s.bindNull(at: 16) }
        try s.bind(r.lifetimeStartedAt, at: 17)
        try s.bind(r.stepsExecuted, at: 18)
        try s.bind(r.depth, at: 19)
        try s.bind(Int64(bitPattern: r.randomSeed), at: 20)
        try s.bind(r.hooks.rawValue, at: 21)
        try s.bind(r.nextNodeID, at: 22)
        if let p = r.precompleted { try s.bind(Self.encode(.object(p)), at: 23) } else { try s.bindNull(at: 23) }
        try s.execute()
    }

    private func upsert(_ n: Node, of instance: InstanceID) throws(SQLiteError) {
        let s = try connection.cachedStatement(Self.upsertNodeSQL)
        try s.bind(instance.rawValue, at: 1)
        try s.bind(n.id.rawValue, at: 2)
        if let p = n.parent { try s.bind(p.rawValue, at: 3) } else { try s.bindNull(at: 3) }
        try s.bind(n.blockIndex, at: 4)
        try s.bind(n.list, at: 5)
        try s.bind(n.position, at: 6)
        try s.bind(n.iteration, at: 7)
        try s.bind(n.state.rawValue, at: 8)
        try s.bind(n.phase.rawValue, at: 9)
        try s.bind(n.attempt, at: 10)
        if let d = n.dueAt { try s.bind(d, at: 11) } else { try s.bindNull(at: 11) }
        if let d = n.startedAt { try s.bind(d, at: 12) } else { try s.bindNull(at: 12) }
        if let d = n.finishedAt { try s.bind(d, at: 13) } else { try s.bindNull(at: 13) }
        if let e = n.error { try s.bind(Self.encode(e.jsonValue), at: 14) } else { try s.bindNull(at: 14) }
        let progress = n.progress.jsonValue
        if progress.objectValue?.isEmpty ?? true { try s.bindNull(at: 15) } else { try s.bind(Self.encode(progress), at: 15) }
        try s.execute()
    }
}

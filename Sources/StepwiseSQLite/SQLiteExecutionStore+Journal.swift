internal import CSQLite
public import StepwiseExecution
import StepwiseJSON

/// The journal's storage: entries are written in chunks, one row per instance per commit or
/// fold, holding that instance's entries of it in order.
///
/// A step journals three entries; as rows of a table with an instance index that was six
/// B-tree inserts per step, the largest part of writing a step. A chunk is one insert for all
/// of an instance's entries in a fold. Rows of the `journal` table written before chunks
/// existed are read as they are.
extension SQLiteExecutionStore {
    static let journalColumns = "seq, instance_id, node_id, kind, step_id, attempt, at, payload"

    static func readJournal(_ s: SQLiteStatement) -> JournalEntry {
        JournalEntry(
            sequence: s.int64(at: 0), instance: InstanceID(trusted: s.text(at: 1)),
            node: s.isNull(at: 2) ? nil : NodeID(rawValue: s.int(at: 2)),
            kind: JournalEntry.Kind(rawValue: s.text(at: 3)) ?? .hookFailed,
            stepID: s.isNull(at: 4) ? nil : s.text(at: 4), attempt: s.isNull(at: 5) ? nil : s.int(at: 5),
            at: s.int64(at: 6), payload: decode(s.blob(at: 7)))
    }

    /// The row-write values of a journal entry (its sequence number assigned).
    static func values(of entry: JournalEntry) -> [SQLiteValue] {
        [
            .integer(entry.sequence), .text(entry.instance.rawValue), entry.node.map { .integer(Int64($0.rawValue)) } ?? .null,
            .text(entry.kind.rawValue), entry.stepID.map(SQLiteValue.text) ?? .null,
            entry.attempt.map { .integer(Int64($0)) } ?? .null, .integer(entry.at), .blob(encode(entry.payload)),
        ]
    }

    /// The entry of row-write values (the inverse of ``values(of:)``).
    static func journalEntry(_ v: [SQLiteValue]) -> JournalEntry {
        JournalEntry(
            sequence: v[0].int64Value ?? 0, instance: InstanceID(trusted: v[1].textValue ?? ""),
            node: v[2].int64Value.map { NodeID(rawValue: Int($0)) }, kind: JournalEntry.Kind(rawValue: v[3].textValue ?? "") ?? .hookFailed,
            stepID: v[4].textValue, attempt: v[5].int64Value.map { Int($0) }, at: v[6].int64Value ?? 0,
            payload: decode(v[7].blobValue ?? []))
    }

    /// Writes journal entries (row writes of `.insertJournal`, in sequence order) as one chunk
    /// per instance.
    func writeJournalChunks(_ entries: [SQLiteRowWrite]) throws(SQLiteError) {
        guard !entries.isEmpty else { return }
        var order: [SQLiteValue] = []
        var byInstance: [SQLiteValue: [SQLiteRowWrite]] = [:]
        for entry in entries {
            let instance = entry.values[1]
            if byInstance[instance] == nil { order.append(instance) }
            byInstance[instance, default: []].append(entry)
        }
        let s = try connection.cachedStatement(
            "INSERT INTO journal_chunks (first_seq, last_seq, instance_id, entries) VALUES (?, ?, ?, ?)")
        for instance in order {
            guard let chunk = byInstance[instance], let first = chunk.first, let last = chunk.last else { continue }
            var body: [UInt8] = []
            SQLiteChangeLog.encode(chunk, into: &body)
            try s.bind(first.values[0], at: 1)
            try s.bind(last.values[0], at: 2)
            try s.bind(instance, at: 3)
            try s.bind(body, at: 4)
            try s.execute()
        }
    }

    /// Decodes the chunk in column `column` of `s` (its first sequence number in column 0).
    private static func chunkEntries(_ s: SQLiteStatement, column: Int) throws(SQLiteError) -> [JournalEntry] {
        try SQLiteChangeLog.decode(s.blob(at: column), record: s.int64(at: 0), source: "the journal chunk from entry")
            .map { journalEntry($0.values) }
    }

    /// The entries of the chunk in column 1 of `s` for the feed (``journal(after:limit:)``):
    /// none when the chunk is damaged. The feed drives listener delivery and telemetry from a
    /// persisted cursor; failing on one damaged chunk would stop both for good, so the feed
    /// goes past it (reading an instance's history still reports the damage).
    private static func feedEntries(_ s: SQLiteStatement) -> [JournalEntry] {
        (try? chunkEntries(s, column: 1)) ?? []
    }

    public func lastJournalSequence() throws(StepwiseError) -> Int64 {
        try run("cannot read the journal") { () throws(SQLiteError) -> Int64 in
            max(try lastStoredJournalSequence(), nextJournalSequence - 1)
        }
    }

    /// The highest sequence number stored or in the change log, or 0.
    func lastStoredJournalSequence() throws(SQLiteError) -> Int64 {
        let s = try connection.cachedStatement(
            """
            SELECT max((SELECT COALESCE(MAX(seq), 0) FROM journal), (SELECT COALESCE(MAX(last_seq), 0) FROM journal_chunks),
                (SELECT COALESCE(MAX(last_journal_seq), 0) FROM change_log))
            """)
        defer { s.reset() }
        return try s.step() ? s.int64(at: 0) : 0
    }

    public func journal(of instance: InstanceID) throws(StepwiseError) -> [JournalEntry] {
        try run("cannot read the journal of \(instance)") { () throws(SQLiteError) -> [JournalEntry] in
            var result: [JournalEntry] = []
            let legacy = try connection.cachedStatement(
                "SELECT \(Self.journalColumns) FROM journal WHERE instance_id = ? ORDER BY seq")
            do {
                defer { legacy.reset() }
                try legacy.bind(instance.rawValue, at: 1)
                while try legacy.step() { result.append(Self.readJournal(legacy)) }
            }
            let chunks = try connection.cachedStatement(
                "SELECT first_seq, entries FROM journal_chunks WHERE instance_id = ? ORDER BY first_seq")
            do {
                defer { chunks.reset() }
                try chunks.bind(instance.rawValue, at: 1)
                while try chunks.step() { result += try Self.chunkEntries(chunks, column: 1) }
            }
            // Entries still in the change log follow every stored one (unless another
            // connection folded them meanwhile: then they are stored and not added twice).
            let stored = result.last?.sequence ?? 0
            return result + loggedJournal.filter { $0.instance == instance && $0.sequence > stored }
        }
    }

    public func journal(after sequence: Int64, limit: Int) throws(StepwiseError) -> [JournalEntry] {
        guard limit > 0 else { return [] }
        return try run("cannot read the journal") { () throws(SQLiteError) -> [JournalEntry] in
            var found: [JournalEntry] = []
            let legacy = try connection.cachedStatement(
                "SELECT \(Self.journalColumns) FROM journal WHERE seq > ? ORDER BY seq LIMIT ?")
            do {
                defer { legacy.reset() }
                try legacy.bind(sequence, at: 1)
                try legacy.bind(limit, at: 2)
                while try legacy.step() { found.append(Self.readJournal(legacy)) }
            }
            // Chunks of different instances interleave: take the ones reaching past `sequence`
            // that start before it, then the following ones in order of their first entry
            // until `limit` entries come before the next chunk's first.
            let spanning = try connection.cachedStatement(
                "SELECT first_seq, entries FROM journal_chunks WHERE last_seq > ? AND first_seq <= ?")
            do {
                defer { spanning.reset() }
                try spanning.bind(sequence, at: 1)
                try spanning.bind(sequence, at: 2)
                while try spanning.step() { found += Self.feedEntries(spanning).filter { $0.sequence > sequence } }
            }
            let following = try connection.cachedStatement(
                "SELECT first_seq, entries FROM journal_chunks WHERE first_seq > ? ORDER BY first_seq")
            do {
                defer { following.reset() }
                try following.bind(sequence, at: 1)
                while try following.step() {
                    let next = following.int64(at: 0)
                    if found.count >= limit {
                        found.sort { $0.sequence < $1.sequence }
                        found.removeLast(found.count - limit)
                        if found[limit - 1].sequence < next { break }
                    }
                    found += Self.feedEntries(following)
                }
            }
            found.sort { $0.sequence < $1.sequence }
            if found.count > limit { found.removeLast(found.count - limit) }
            // Entries still in the change log follow every stored one (listeners read here after
            // every commit: no fold for them).
            let stored = max(sequence, found.last?.sequence ?? 0)
            for entry in loggedJournal where found.count < limit && entry.sequence > stored { found.append(entry) }
            return found
        }
    }
}

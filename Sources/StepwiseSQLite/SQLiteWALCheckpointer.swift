internal import CSQLite
import Dispatch
import Synchronization

/// Moves WAL checkpoints off the writer's commit path.
///
/// SQLite's automatic checkpoint runs inside the `COMMIT` that pushes the WAL past its
/// threshold: that commit copies every page back into the database file and syncs it twice, so
/// one step in a few hundred stalls for milliseconds (the engine's p99 step-to-step latency) and
/// the copying competes with the engine for the writer's thread. Here the writer's WAL hook only
/// asks a second connection, on its own serial queue, to run a `PASSIVE` checkpoint, which never
/// blocks the writer. Durability is unchanged: a commit is durable in the WAL before any
/// checkpoint (D1, D5); checkpoints only bound the WAL's size. If the background falls far
/// behind, the writer checkpoints inline as SQLite would have.
final class SQLiteWALCheckpointer: Sendable {
    /// WAL pages after which a background checkpoint is requested (SQLite's default threshold).
    static let backgroundThreshold: Int32 = 1000
    /// WAL pages after which the writer checkpoints by itself: the background is not keeping up.
    static let inlineThreshold: Int32 = 16_000

    /// The checkpointing connection, used only on `queue`; `nil` once closed.
    private let connection: Mutex<SQLiteConnection?>
    private let queue = DispatchQueue(label: "stepwise.sqlite.checkpoint")
    /// Whether a checkpoint is queued and has not started yet, so bursts of commits queue one.
    private let isScheduled = Atomic<Bool>(false)

    /// Opens the checkpointing connection to the same file.
    ///
    /// - Throws: ``SQLiteError`` when the file cannot be opened.
    init(path: String, durability: SQLiteConnection.Durability) throws(SQLiteError) {
        // A short busy timeout: a checkpoint that cannot get its lock is simply retried by the
        // next request.
        connection = Mutex(
            try SQLiteConnection(
                path: path, configuration: .init(durability: durability, busyTimeout: .milliseconds(50))))
    }

    /// Installs the WAL hook on `writer`; call ``uninstall(from:)`` before the checkpointer is
    /// released (the hook holds it unretained).
    func install(on writer: SQLiteConnection) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        // https://www.sqlite.org/c3ref/wal_hook.html
        // > The callback is invoked by SQLite after the commit has taken place and the
        // > associated write-lock on the database released [...] the third parameter is the
        // > name of the database that was written to [...] the fourth parameter is the number of
        // > pages currently in the write-ahead log file.
        // Installing a hook replaces the automatic checkpoint (sqlite3_wal_autocheckpoint).
        sqlite3_wal_hook(writer.handle.database, { context, database, _, pages in
            guard let context else { return SQLITE_OK }
            let checkpointer = Unmanaged<SQLiteWALCheckpointer>.fromOpaque(context).takeUnretainedValue()
            if pages >= SQLiteWALCheckpointer.inlineThreshold {
                // The fallback SQLite's own hook would run; its errors are not the commit's.
                _ = sqlite3_wal_checkpoint_v2(database, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            } else if pages >= SQLiteWALCheckpointer.backgroundThreshold {
                checkpointer.request()
            }
            return SQLITE_OK
        }, context)
    }

    /// Removes the hook from `writer` and restores SQLite's automatic checkpoint.
    func uninstall(from writer: SQLiteConnection) {
        sqlite3_wal_autocheckpoint(writer.handle.database, SQLiteWALCheckpointer.backgroundThreshold)
    }

    /// Queues one background checkpoint unless one is already waiting.
    private func request() {
        guard !isScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            isScheduled.store(false, ordering: .releasing)
            connection.withLock { connection in
                guard let database = connection?.handle.database else { return }
                // PASSIVE copies what no reader still needs and never waits for the writer;
                // what it leaves is copied by a later request. Failures (busy) are retried then.
                _ = sqlite3_wal_checkpoint_v2(database, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
        }
    }

    /// Waits for a running checkpoint and closes the connection; later requests do nothing.
    func close() {
        queue.sync {
            connection.withLock { $0 = nil }
        }
    }
}

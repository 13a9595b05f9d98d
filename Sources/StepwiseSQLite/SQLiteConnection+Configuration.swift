extension SQLiteConnection {
    /// How hard each commit works to survive a crash
    /// ([PRAGMA synchronous](https://www.sqlite.org/pragma.html#pragma_synchronous)).
    ///
    /// Connections always use WAL mode; in WAL mode both levels keep the database consistent
    /// after any crash. They differ on power loss.
    public enum Durability: Sendable, Hashable, CaseIterable {
        /// `synchronous=NORMAL`: a commit survives the process being killed, but the last
        /// commits may be lost (not corrupted) if the OS crashes or power fails before the
        /// next checkpoint. No fsync per commit: much faster.
        case normal
        /// `synchronous=FULL`: the WAL is synced at every commit, so a commit survives power
        /// loss too. One fsync per commit.
        case full
    }

    /// What a connection sets up when it opens.
    ///
    /// ```swift
    /// var configuration = SQLiteConnection.Configuration()
    /// configuration.durability = .normal
    /// configuration.busyTimeout = .milliseconds(250)
    /// let connection = try SQLiteConnection(path: path, configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// Open read-only (`SQLITE_OPEN_READONLY`): the file must exist, writes fail with
        /// ``SQLiteError/isReadOnly``, and the journal mode is left as the file has it.
        /// Default `false`: read-write, creating the file if missing.
        public var isReadOnly: Bool
        /// `PRAGMA synchronous`; default ``Durability/full``.
        public var durability: Durability
        /// How long a statement waits for another connection's lock before failing with
        /// ``SQLiteError/isBusy`` ([sqlite3_busy_timeout](https://www.sqlite.org/c3ref/busy_timeout.html));
        /// default 5 seconds, rounded down to milliseconds.
        public var busyTimeout: Duration
        /// `PRAGMA foreign_keys`; default `true`.
        public var enforcesForeignKeys: Bool

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - isReadOnly: open read-only; default `false`.
        ///   - durability: `PRAGMA synchronous`; default ``Durability/full``.
        ///   - busyTimeout: wait for locks this long; default 5 seconds.
        ///   - enforcesForeignKeys: `PRAGMA foreign_keys`; default `true`.
        public init(
            isReadOnly: Bool = false,
            durability: Durability = .full,
            busyTimeout: Duration = .milliseconds(5000),
            enforcesForeignKeys: Bool = true
        ) {
            self.isReadOnly = isReadOnly
            self.durability = durability
            self.busyTimeout = busyTimeout
            self.enforcesForeignKeys = enforcesForeignKeys
        }

        /// ``busyTimeout`` in whole milliseconds, clamped to SQLite's `int`.
        var busyTimeoutMilliseconds: Int32 {
            let (seconds, attoseconds) = busyTimeout.components
            guard seconds >= 0 else { return 0 }
            let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
            guard !milliseconds.overflow else { return Int32.max }
            return Int32(clamping: milliseconds.partialValue + attoseconds / 1_000_000_000_000_000)
        }
    }
}

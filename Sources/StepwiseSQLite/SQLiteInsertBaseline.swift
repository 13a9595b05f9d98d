/// The physical limit of durable writes on this device: one single-row `INSERT` per
/// transaction, as fast as SQLite commits them.
///
/// The engine benchmark compares its durable steps per second with this number: a step
/// costs at least one commit, so the baseline is the ceiling.
///
/// ```swift
/// let elapsed = try SQLiteInsertBaseline.measure(path: "/tmp/baseline.sqlite", durability: .full, transactions: 1_000)
/// let perSecond = 1_000 / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
/// ```
public enum SQLiteInsertBaseline {
    /// Creates (if needed) a table `baseline_inserts` in the database at `path`, then runs
    /// `transactions` transactions of one `INSERT` each and returns the time they took.
    ///
    /// Each transaction is `BEGIN IMMEDIATE; INSERT …; COMMIT` through
    /// ``SQLiteConnection/transaction(_:_:)`` with a cached statement, on a connection
    /// configured as the engine's would be (WAL, the given durability). Opening the database,
    /// creating the table and `warmUp` transactions first (the WAL file grows to its working
    /// size, as it has in a database in use) are not timed. Rows from earlier runs are kept.
    ///
    /// - Parameters:
    ///   - path: the database file; created if missing.
    ///   - durability: `synchronous` level of the connection.
    ///   - transactions: how many single-row transactions to commit; zero or more.
    ///   - payloadSize: bytes of the blob stored with each row, a stand-in for a node's
    ///     state; default 256.
    ///   - warmUp: untimed transactions committed first; default 0.
    /// - Returns: the time taken by the transactions, measured with `ContinuousClock`.
    /// - Throws: ``SQLiteError`` when the database cannot be opened or a write fails.
    public static func measure(
        path: String,
        durability: SQLiteConnection.Durability,
        transactions: Int,
        payloadSize: Int = 256,
        warmUp: Int = 0
    ) throws(SQLiteError) -> Duration {
        let connection = try SQLiteConnection(
            path: path,
            configuration: SQLiteConnection.Configuration(durability: durability)
        )
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS baseline_inserts(
                id INTEGER PRIMARY KEY,
                sequence INTEGER NOT NULL,
                payload BLOB NOT NULL
            )
            """)
        let payload = [UInt8](repeating: 0xA5, count: max(0, payloadSize))
        let sql = "INSERT INTO baseline_inserts(sequence, payload) VALUES (?, ?)"
        let clock = ContinuousClock()
        var start = clock.now
        for sequence in 0..<max(0, warmUp) + max(0, transactions) {
            if sequence == max(0, warmUp) { start = clock.now }
            do {
                try connection.transaction(.immediate) {
                    let insert = try connection.cachedStatement(sql)
                    try insert.bind(sequence, at: 1)
                    try insert.bind(payload, at: 2)
                    try insert.execute()
                }
            } catch let error as SQLiteError {
                throw error
            } catch {
                preconditionFailure("only SQLiteError can be thrown here: \(error)")
            }
        }
        return clock.now - start
    }
}

/// One step of a database schema's history: a version number, a name, and the change.
///
/// Versions are positive and strictly increasing across a ``SQLiteMigrator``'s list; the
/// version of the last applied migration is stored in `PRAGMA user_version`. Never edit a
/// migration that has shipped: add a new one.
///
/// ```swift
/// let createNodes = SQLiteMigration(version: 1, name: "create nodes", sql: """
///     CREATE TABLE nodes(id INTEGER PRIMARY KEY, state TEXT NOT NULL);
///     """)
/// let backfill = SQLiteMigration(version: 2, name: "backfill states") { connection in
///     try connection.execute("UPDATE nodes SET state = 'ready' WHERE state = ''")
/// }
/// ```
public struct SQLiteMigration: Sendable {
    /// The schema version this migration produces; positive.
    public let version: Int32
    /// A short description, for errors and logs.
    public let name: String
    /// The change, run inside the migration's transaction.
    let apply: @Sendable (SQLiteConnection) throws -> Void

    /// A migration given as an SQL script (one or more statements).
    ///
    /// - Parameters:
    ///   - version: the schema version it produces; positive.
    ///   - name: a short description.
    ///   - sql: the script, run with ``SQLiteConnection/execute(_:)``. Do not begin or end
    ///     transactions in it.
    public init(version: Int32, name: String, sql: String) {
        self.init(version: version, name: name) { connection in
            try connection.execute(sql)
        }
    }

    /// A migration given as code.
    ///
    /// - Parameters:
    ///   - version: the schema version it produces; positive.
    ///   - name: a short description.
    ///   - apply: the change. It runs inside a transaction: do not begin or end
    ///     transactions in it, and throw to abandon the migration.
    public init(version: Int32, name: String, apply: @escaping @Sendable (SQLiteConnection) throws -> Void) {
        self.version = version
        self.name = name
        self.apply = apply
    }
}

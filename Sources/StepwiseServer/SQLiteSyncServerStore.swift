import StepwiseCrypto
import StepwiseExecution
import StepwiseJSON
import StepwiseSQLite

/// The sync server's store on one SQLite file (WAL), behind ``SyncServerStore``.
///
/// The actor owns the only connection to the file and so confines it (connections are not
/// `Sendable`); each method runs one `BEGIN IMMEDIATE` transaction (reads run deferred), so
/// the writes of one HTTP request commit or roll back together. The schema is versioned by
/// `PRAGMA user_version` through `SQLiteMigrator`.
///
/// ```swift
/// let store = try SQLiteSyncServerStore(path: "server.db")
/// let server = SyncServer(store: store, configuration: SyncServerConfiguration())
/// ```
///
/// API keys are stored as SHA-256 digests. Push tokens are stored (they are needed to push)
/// but no method of the HTTP API returns them. Resolved credentials exist only inside sealed
/// command payloads.
public actor SQLiteSyncServerStore: SyncServerStore {
    /// The connection, confined to this actor.
    let connection: SQLiteConnection
    /// The database file.
    public nonisolated let path: String

    /// Opens (creating if needed) and migrates the database at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file, or `":memory:"` for a private in-memory database.
    ///   - survivesPowerLoss: `true` (the default) syncs every commit to disk
    ///     (`synchronous=FULL`), so it survives a power loss; `false` (`NORMAL`) survives a
    ///     crash of the process only, and is faster.
    /// - Throws: ``SyncServerError`` (``SyncServerError/Code/storage``) when the file cannot be
    ///   opened, is not a database, or was written by a newer schema.
    public init(path: String, survivesPowerLoss: Bool = true) throws(SyncServerError) {
        self.path = path
        // Another application's file (or a directory, a device) is refused before a connection
        // switches it to WAL: nothing of it is changed.
        if let foreign = SQLiteExecutionStore.foreignFileError(path) {
            throw SyncServerError(.storage, "cannot open sync server database \(path): \(foreign.message)")
        }
        do {
            let connection = try SQLiteConnection(path: path, configuration: .init(durability: survivesPowerLoss ? .full : .normal))
            try Self.migrator.migrate(connection)
            self.connection = connection
        } catch {
            throw SyncServerError(.storage, "cannot open sync server database \(path): \(error)", underlyingError: error)
        }
    }

    // MARK: Transactions

    /// Runs `body` in an immediate (writing) transaction; errors become ``SyncServerError``.
    func write<Result>(_ body: () throws -> Result) throws(SyncServerError) -> Result {
        do {
            return try connection.transaction(.immediate, body)
        } catch {
            throw SyncServerError.storage(error)
        }
    }

    /// Runs `body` in a deferred (reading) transaction, so its queries see one snapshot.
    func read<Result>(_ body: () throws -> Result) throws(SyncServerError) -> Result {
        do {
            return try connection.transaction(.deferred, body)
        } catch {
            throw SyncServerError.storage(error)
        }
    }

    /// Marks pending approvals whose expiry has come as expired.
    func expireApprovals(now: Int64) throws {
        try connection.execute(
            "UPDATE approvals SET state = 'expired' WHERE state = 'pending' AND expires_at <= ?", bindings: [.integer(now)])
    }

    /// The count of the first column of a `count(*)` query.
    func count(_ sql: String, _ bindings: [SQLiteValue]) throws -> Int {
        Int(try connection.queryValue(sql, bindings: bindings)?.int64Value ?? 0)
    }

    // MARK: Tenants, keys, settings

    /// The stored form of an API key: the lowercase hex SHA-256 of its UTF-8 bytes.
    static func keyHash(_ key: String) -> String {
        SHA256.hexDigest(of: Array(key.utf8))
    }

    public func addAPIKey(_ key: String, grant: APIKeyGrant, now: Int64) throws(SyncServerError) {
        try write {
            var tenantValue: SQLiteValue = .null
            if case .tenant(let tenant) = grant {
                try connection.execute(
                    "INSERT INTO tenants(id, created_at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING",
                    bindings: [.text(tenant.rawValue), .integer(now)])
                tenantValue = .text(tenant.rawValue)
            }
            try connection.execute(
                """
                INSERT INTO api_keys(key_hash, tenant_id, is_admin, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(key_hash) DO UPDATE SET tenant_id = excluded.tenant_id, is_admin = excluded.is_admin
                """,
                bindings: [.text(Self.keyHash(key)), tenantValue, .integer(grant == .admin ? 1 : 0), .integer(now)])
        }
    }

    public func grant(forAPIKey key: String) throws(SyncServerError) -> APIKeyGrant? {
        try read {
            let rows = try connection.query(
                "SELECT tenant_id, is_admin FROM api_keys WHERE key_hash = ?", bindings: [.text(Self.keyHash(key))])
            guard let row = rows.first else { return nil }
            if row[1].int64Value == 1 { return .admin }
            return row[0].textValue.flatMap(TenantID.init(rawValue:)).map(APIKeyGrant.tenant)
        }
    }

    public func tenantExists(_ tenant: TenantID) throws(SyncServerError) -> Bool {
        try read {
            try count("SELECT count(*) FROM tenants WHERE id = ?", [.text(tenant.rawValue)]) > 0
        }
    }

    public func setting(_ name: String) throws(SyncServerError) -> String? {
        try read {
            try connection.queryValue("SELECT value FROM settings WHERE name = ?", bindings: [.text(name)])?.textValue
        }
    }

    public func setSetting(_ name: String, value: String) throws(SyncServerError) {
        try write {
            try connection.execute(
                "INSERT INTO settings(name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                bindings: [.text(name), .text(value)])
        }
    }

    // MARK: Housekeeping

    public func prune(now: Int64, cutoff: Int64) throws(SyncServerError) {
        try write {
            try expireApprovals(now: now)
            try connection.execute(
                "DELETE FROM commands WHERE (acked_at IS NOT NULL AND acked_at < ?) OR (acked_at IS NULL AND expires_at < ?)",
                bindings: [.integer(cutoff), .integer(cutoff)])
            try connection.execute(
                "DELETE FROM approvals WHERE state <> 'pending' AND coalesce(resolved_at, expires_at) < ?",
                bindings: [.integer(cutoff)])
            try connection.execute("DELETE FROM delegations WHERE received_at < ?", bindings: [.integer(cutoff)])
        }
    }
}

extension SQLiteValue {
    /// `.text`, or `.null` for `nil`.
    static func optionalText(_ text: String?) -> SQLiteValue { text.map(SQLiteValue.text) ?? .null }

    /// `.integer`, or `.null` for `nil`.
    static func optionalInteger(_ value: Int64?) -> SQLiteValue { value.map(SQLiteValue.integer) ?? .null }

    /// `value` as compact JSON text.
    static func json(_ value: JSONValue) -> SQLiteValue { .text(JSONWriter.string(value)) }

    /// The JSON value stored as text; `null` when absent or unreadable.
    var jsonValue: JSONValue {
        guard let text = textValue, let value = try? JSONParser.parse(text) else { return .null }
        return value
    }
}

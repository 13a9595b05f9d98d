/// Brings a database's schema up to date by applying ``SQLiteMigration``s in order.
///
/// The schema version lives in `PRAGMA user_version` (0 for a new database). ``migrate(_:)``
/// applies each migration newer than that version in its own `BEGIN IMMEDIATE` transaction,
/// together with setting `user_version` to the migration's version: each migration is
/// applied entirely or not at all, and running the migrator again does nothing.
///
/// ```swift
/// let migrator = SQLiteMigrator([
///     SQLiteMigration(version: 1, name: "create nodes", sql: "CREATE TABLE nodes(id INTEGER PRIMARY KEY)"),
///     SQLiteMigration(version: 2, name: "add state", sql: "ALTER TABLE nodes ADD COLUMN state TEXT"),
/// ])
/// let connection = try SQLiteConnection(path: path)
/// try migrator.migrate(connection)   // user_version is now 2
/// ```
///
/// A database whose `user_version` is newer than the newest migration was written by a newer
/// version of the app; the migrator refuses it rather than guess.
public struct SQLiteMigrator: Sendable {
    /// The migrations, by increasing version.
    public let migrations: [SQLiteMigration]
    /// Tables every version of this schema has (from migration 1 on): a database whose
    /// `user_version` is not 0 and lacks one was written by another application, and is
    /// refused with ``SQLiteMigrationError/Code/foreignSchema``.
    public let identifyingTables: [String]

    /// Creates a migrator.
    ///
    /// - Parameters:
    ///   - migrations: the whole schema history, by strictly increasing positive version.
    ///   - identifyingTables: tables every version of the schema has; default none (no check).
    /// - Precondition: versions are positive and strictly increasing. A wrong list is a
    ///   programming error, caught by any test that creates the migrator.
    public init(_ migrations: [SQLiteMigration], identifyingTables: [String] = []) {
        self.identifyingTables = identifyingTables
        var previous: Int32 = 0
        for migration in migrations {
            precondition(
                migration.version > previous,
                "migration versions must be positive and strictly increasing; \(migration.version) '\(migration.name)' follows \(previous)"
            )
            previous = migration.version
        }
        self.migrations = migrations
    }

    /// The newest schema version this migrator knows; 0 without migrations.
    public var latestVersion: Int32 {
        migrations.last?.version ?? 0
    }

    /// The ``identifyingTables`` the database on `connection` lacks (read-only: a caller can
    /// check a file on a read-only connection before opening it for writing).
    ///
    /// - Throws: ``SQLiteError`` when the schema cannot be read.
    public func missingIdentifyingTables(_ connection: SQLiteConnection) throws(SQLiteError) -> [String] {
        guard !identifyingTables.isEmpty else { return [] }
        var present: Set<String> = []
        for row in try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'") {
            if let name = row[0].textValue { present.insert(name) }
        }
        return identifyingTables.filter { !present.contains($0) }
    }

    /// Applies every migration newer than the database's `user_version`, oldest first.
    ///
    /// Each migration runs in its own immediate transaction that also sets `user_version`;
    /// the version is read again inside that transaction, so two processes migrating at once
    /// do not apply a migration twice. If a migration fails, its changes are rolled back,
    /// `user_version` stays at the last migration that succeeded, and later migrations are
    /// not attempted.
    ///
    /// - Parameter connection: a read-write connection, not inside a transaction.
    /// - Returns: the versions applied by this call, in order; empty when the schema was
    ///   already up to date.
    /// - Throws: ``SQLiteMigrationError`` with code ``SQLiteMigrationError/Code/databaseIsNewer``
    ///   when `user_version` exceeds ``latestVersion`` (nothing is changed), or
    ///   ``SQLiteMigrationError/Code/migrationFailed`` wrapping the error of the migration
    ///   that failed (an ``SQLiteError`` or what its closure threw). An ``SQLiteError`` is
    ///   thrown unwrapped when reading `user_version` fails.
    @discardableResult
    public func migrate(_ connection: SQLiteConnection) throws -> [Int32] {
        let initialVersion = try connection.userVersion()
        if initialVersion != 0, !(try missingIdentifyingTables(connection)).isEmpty {
            throw SQLiteMigrationError(code: .foreignSchema, databaseVersion: initialVersion, latestKnownVersion: latestVersion)
        }
        // Version 0 is a new file only when it has no tables: tables without a version are
        // another application's, which must not get ours added.
        if initialVersion == 0, try !connection.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' LIMIT 1"
        ).isEmpty {
            throw SQLiteMigrationError(code: .foreignSchema, databaseVersion: 0, latestKnownVersion: latestVersion)
        }
        guard initialVersion <= latestVersion else {
            throw SQLiteMigrationError(
                code: .databaseIsNewer,
                databaseVersion: initialVersion,
                latestKnownVersion: latestVersion
            )
        }
        var applied: [Int32] = []
        for migration in migrations where migration.version > initialVersion {
            var currentVersion = applied.last ?? initialVersion
            do {
                let didApply = try connection.transaction(.immediate) {
                    currentVersion = try connection.userVersion()
                    guard currentVersion < migration.version else { return false }
                    try migration.apply(connection)
                    try connection.setUserVersion(migration.version)
                    return true
                }
                if didApply {
                    applied.append(migration.version)
                }
            } catch {
                throw SQLiteMigrationError(
                    code: .migrationFailed,
                    databaseVersion: currentVersion,
                    latestKnownVersion: latestVersion,
                    migrationVersion: migration.version,
                    migrationName: migration.name,
                    underlyingError: error
                )
            }
        }
        return applied
    }
}

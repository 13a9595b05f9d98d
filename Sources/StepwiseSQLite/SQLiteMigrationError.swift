/// Why ``SQLiteMigrator/migrate(_:)`` did not bring a database up to date.
///
/// ```swift
/// do {
///     try migrator.migrate(connection)
/// } catch let error as SQLiteMigrationError where error.code == .databaseIsNewer {
///     // Written by a newer app version: do not touch it.
/// }
/// ```
public struct SQLiteMigrationError: Error, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's text.
        public let rawValue: String
        /// The database's `user_version` is newer than the newest known migration: it was
        /// written by a newer version of the app. Nothing was changed.
        public static let databaseIsNewer = Code(rawValue: "database_is_newer")
        /// The database has a schema version but not the tables every version of this schema
        /// has: another application (or another Stepwise database kind) wrote it. Nothing was
        /// changed.
        public static let foreignSchema = Code(rawValue: "foreign_schema")
        /// A migration threw; its changes were rolled back. ``SQLiteMigrationError/underlyingError``
        /// says why.
        public static let migrationFailed = Code(rawValue: "migration_failed")
        /// The code's text, as ``rawValue``.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// The database's `user_version` when the failure happened.
    public let databaseVersion: Int32
    /// The newest version the migrator knows.
    public let latestKnownVersion: Int32
    /// The version of the failed migration, for ``Code/migrationFailed``.
    public let migrationVersion: Int32?
    /// The name of the failed migration, for ``Code/migrationFailed``.
    public let migrationName: String?
    /// What the failed migration threw (often an ``SQLiteError``), for
    /// ``Code/migrationFailed``.
    public let underlyingError: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - databaseVersion: the database's `user_version`.
    ///   - latestKnownVersion: the newest version the migrator knows.
    ///   - migrationVersion: the failed migration's version, if any.
    ///   - migrationName: the failed migration's name, if any.
    ///   - underlyingError: what the failed migration threw, if any.
    public init(
        code: Code,
        databaseVersion: Int32,
        latestKnownVersion: Int32,
        migrationVersion: Int32? = nil,
        migrationName: String? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.databaseVersion = databaseVersion
        self.latestKnownVersion = latestKnownVersion
        self.migrationVersion = migrationVersion
        self.migrationName = migrationName
        self.underlyingError = underlyingError
    }

    /// A sentence for people, for example `database schema version 7 is newer than the
    /// newest known version 5; it was written by a newer version of the app`.
    public var description: String {
        switch code {
        case .databaseIsNewer:
            return "database schema version \(databaseVersion) is newer than the newest known version "
                + "\(latestKnownVersion); it was written by a newer version of the app"
        case .foreignSchema:
            return "the database has schema version \(databaseVersion) but not this schema's tables; "
                + "it was written by another application (nothing was changed)"
        default:
            var text = "migration \(migrationVersion.map(String.init) ?? "?")"
            if let migrationName {
                text += " '\(migrationName)'"
            }
            text += " failed; the database stays at version \(databaseVersion)"
            if let underlyingError {
                text += ": \(underlyingError)"
            }
            return text
        }
    }
}

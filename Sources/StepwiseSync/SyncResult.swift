public import StepwiseJSON

/// What one manifest sync did (SYNC.md §3.10).
///
/// ```swift
/// let result = try await synchronizer.sync(manifestURL: url, tokenProvider: nil)
/// if result.status == .applied { print("+\(result.added) ~\(result.updated) -\(result.removed)") }
/// for entry in result.entries where entry.retryPending { print(entry.name, entry.outcome) }
/// ```
public struct SyncResult: Sendable, Hashable {
    /// The manifest-level outcome.
    public enum Status: String, Sendable, Hashable {
        /// A newer manifest was accepted and its entries processed.
        case applied
        /// 304, or the applied manifest again byte for byte; only retries ran.
        case notModified = "not_modified"
        /// An older manifest, or the applied version with other bytes (replay); only retries ran.
        case stale
    }

    /// One processed entry.
    public struct Entry: Sendable, Hashable {
        /// The entry's name (best effort for an `invalid_entry`).
        public var name: String
        /// The entry's version, when it is an integer.
        public var version: Int?
        /// The §3.7 outcome.
        public var outcome: EntryOutcome
        /// Why it failed, for failures.
        public var message: String?
        /// Whether it runs again on the next sync.
        public var retryPending: Bool

        /// Creates an entry result.
        public init(name: String, version: Int?, outcome: EntryOutcome, message: String? = nil, retryPending: Bool) {
            self.name = name
            self.version = version
            self.outcome = outcome
            self.message = message
            self.retryPending = retryPending
        }
    }

    /// The manifest-level outcome.
    public var status: Status
    /// `manifest_version` in force after the sync (the accepted one; `nil` if none ever was).
    public var manifestVersion: Int64?
    /// Entries `installed` (new names).
    public var added: Int
    /// Entries `updated` (new versions of stored names).
    public var updated: Int
    /// Versions retired by `removed` or by absence.
    public var removed: Int
    /// Entries counted as skipped.
    public var skipped: Int
    /// Entries counted as signature failures.
    public var signatureFailures: Int
    /// Every entry processed by this sync, in manifest order (retries only, unless `applied`).
    public var entries: [Entry]
    /// Non-fatal problems (dropped signing keys, a stale manifest's version).
    public var warnings: [String]

    /// Creates a result; the counts are derived from `entries`.
    public init(status: Status, manifestVersion: Int64?, removed: Int, entries: [Entry], warnings: [String]) {
        self.status = status
        self.manifestVersion = manifestVersion
        self.removed = removed
        self.entries = entries
        self.warnings = warnings
        added = entries.filter { $0.outcome.category == .added }.count
        updated = entries.filter { $0.outcome.category == .updated }.count
        skipped = entries.filter { $0.outcome.category == .skipped }.count
        signatureFailures = entries.filter { $0.outcome.category == .signatureFailure }.count
    }

    /// The result with SYNC.md's wire names (`not_modified`, `signature_failures`, `retry_pending`).
    public var jsonValue: JSONValue {
        var object: JSONObject = [
            "status": .string(status.rawValue), "added": .integer(Int64(added)), "updated": .integer(Int64(updated)),
            "removed": .integer(Int64(removed)), "skipped": .integer(Int64(skipped)),
            "signature_failures": .integer(Int64(signatureFailures)),
            "entries": .array(
                entries.map { e in
                    var o: JSONObject = [
                        "name": .string(e.name), "outcome": .string(e.outcome.rawValue), "retry_pending": .bool(e.retryPending),
                    ]
                    o["version"] = e.version.map { .integer(Int64($0)) } ?? .null
                    if let message = e.message { o["message"] = .string(message) }
                    return .object(o)
                }),
            "warnings": .array(warnings.map(JSONValue.string)),
        ]
        object["manifest_version"] = manifestVersion.map { .integer($0) } ?? .null
        return .object(object)
    }
}

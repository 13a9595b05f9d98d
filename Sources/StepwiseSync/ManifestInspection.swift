public import StepwiseJSON

/// The report of a one-shot manifest check (`stepwise verify-manifest`, SYNC.md §3.11).
///
/// ```swift
/// let report = try await ManifestInspector.inspect(manifestURL: url, rootKeys: roots)
/// print(JSONWriter.string(report.jsonValue))
/// exit(report.isFullyVerified ? 0 : 1)
/// ```
public struct ManifestInspection: Sendable, Hashable {
    /// The manifest's status.
    public enum Status: String, Sendable, Hashable {
        /// M3–M6 passed.
        case verified
        /// M2–M6 failed; ``ManifestInspection/error`` says why.
        case rejected
    }

    /// One entry's outcome.
    public struct Entry: Sendable, Hashable {
        /// The entry's name (best effort for `invalid_entry`).
        public var name: String
        /// The entry's version, when it is an integer.
        public var version: Int?
        /// `verified`, or the first failing §3.7 outcome.
        public var outcome: EntryOutcome
        /// Why it failed.
        public var message: String?

        /// Creates an entry report.
        public init(name: String, version: Int?, outcome: EntryOutcome, message: String? = nil) {
            self.name = name
            self.version = version
            self.outcome = outcome
            self.message = message
        }
    }

    /// The manifest's status.
    public var status: Status
    /// The §3.6 code of a rejected manifest.
    public var error: ManifestRejectionReason?
    /// The rejection's message.
    public var errorMessage: String?
    /// `manifest_version` of a verified manifest.
    public var manifestVersion: Int64?
    /// Every entry, in manifest order (none when rejected).
    public var entries: [Entry]
    /// Dropped signing keys and other non-fatal problems.
    public var warnings: [String]

    /// Creates a report.
    public init(
        status: Status, error: ManifestRejectionReason? = nil, errorMessage: String? = nil, manifestVersion: Int64? = nil,
        entries: [Entry] = [], warnings: [String] = []
    ) {
        self.status = status
        self.error = error
        self.errorMessage = errorMessage
        self.manifestVersion = manifestVersion
        self.entries = entries
        self.warnings = warnings
    }

    /// Whether the manifest and every entry verified (exit status 0).
    public var isFullyVerified: Bool { status == .verified && entries.allSatisfy { $0.outcome == .verified } }

    /// `{"status", "error", "manifest_version", "entries": [{"name", "version", "outcome", "message"?}], "warnings"}`.
    public var jsonValue: JSONValue {
        var object: JSONObject = ["status": .string(status.rawValue)]
        object["error"] = error.map { .string($0.rawValue) } ?? .null
        object["manifest_version"] = manifestVersion.map { .integer($0) } ?? .null
        object["entries"] = .array(
            entries.map { e in
                var o: JSONObject = ["name": .string(e.name)]
                o["version"] = e.version.map { .integer(Int64($0)) } ?? .null
                o["outcome"] = .string(e.outcome.rawValue)
                if let message = e.message { o["message"] = .string(message) }
                return .object(o)
            })
        object["warnings"] = .array(warnings.map(JSONValue.string))
        return .object(object)
    }
}

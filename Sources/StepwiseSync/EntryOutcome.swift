/// The outcome of one manifest entry (SYNC.md §3.7), with its wire name.
///
/// Each outcome is counted in exactly one ``Category`` and is retried on the next sync or not.
///
/// ```swift
/// for entry in result.entries where entry.outcome == .hashMismatch { print(entry.name, entry.retryPending) }
/// ```
public struct EntryOutcome: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// Where an outcome is counted in a ``SyncResult``.
    public enum Category: String, Sendable, Hashable {
        /// `added`: a new name was installed.
        case added
        /// `updated`: a new version of an installed name.
        case updated
        /// `skipped`: not installed, for a non-cryptographic reason.
        case skipped
        /// `signature_failures`: hash, key or signature problems, or an invalid signed document.
        case signatureFailure = "signature_failures"
        /// Not counted: `verified` (CLI) and `pending` (not processed yet).
        case none
    }

    /// The `snake_case` wire name.
    public let rawValue: String
    /// Wraps a name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The wire name.
    public var description: String { rawValue }

    /// Recorded at acceptance, before the entry is processed.
    public static let pending = EntryOutcome(rawValue: "pending")
    /// E1, E5: the entry's fields have the wrong types, or its URL is unusable.
    public static let invalidEntry = EntryOutcome(rawValue: "invalid_entry")
    /// E2: `min_sdk_version` is above this SDK (or not numeric).
    public static let skippedSDKVersion = EntryOutcome(rawValue: "skipped_sdk_version")
    /// E3, E12: a required handler is not registered.
    public static let skippedMissingHandlers = EntryOutcome(rawValue: "skipped_missing_handlers")
    /// E4: the same bytes are already stored for this (name, version).
    public static let upToDate = EntryOutcome(rawValue: "up_to_date")
    /// E4: other bytes are stored for this (name, version).
    public static let versionConflict = EntryOutcome(rawValue: "version_conflict")
    /// E4: a higher version of this name is stored.
    public static let superseded = EntryOutcome(rawValue: "superseded")
    /// E6: the sequence could not be downloaded.
    public static let downloadFailed = EntryOutcome(rawValue: "download_failed")
    /// E6: the sequence is larger than the cap.
    public static let tooLarge = EntryOutcome(rawValue: "too_large")
    /// E7: the bytes' SHA-256 differs from `sha256`.
    public static let hashMismatch = EntryOutcome(rawValue: "hash_mismatch")
    /// E8: `signing_key_id` is not a trusted key of this manifest.
    public static let unknownSigningKey = EntryOutcome(rawValue: "unknown_signing_key")
    /// E9: the `.sig` could not be downloaded.
    public static let signatureDownloadFailed = EntryOutcome(rawValue: "signature_download_failed")
    /// E10: the `.sig` is not base64 of 64 bytes.
    public static let signatureMalformed = EntryOutcome(rawValue: "signature_malformed")
    /// E11: the signature does not verify.
    public static let signatureInvalid = EntryOutcome(rawValue: "signature_invalid")
    /// E12: the signed bytes are not a valid sequence with the entry's name and version.
    public static let invalidSequence = EntryOutcome(rawValue: "invalid_sequence")
    /// E13: no room under `maxStoredSequences`, even after eviction.
    public static let storageLimit = EntryOutcome(rawValue: "storage_limit")
    /// E14: installed, a name not stored before.
    public static let installed = EntryOutcome(rawValue: "installed")
    /// E14: installed, a new version of a stored name.
    public static let updated = EntryOutcome(rawValue: "updated")
    /// `verify-manifest` only: every applicable check passed.
    public static let verified = EntryOutcome(rawValue: "verified")

    /// Where this outcome is counted.
    public var category: Category {
        switch self {
        case .installed: .added
        case .updated: .updated
        case .hashMismatch, .unknownSigningKey, .signatureDownloadFailed, .signatureMalformed, .signatureInvalid,
            .invalidSequence:
            .signatureFailure
        case .verified, .pending: .none
        default: .skipped
        }
    }

    /// Whether the entry runs again (from E2) on the next sync.
    public var isRetryable: Bool {
        switch self {
        case .pending, .skippedSDKVersion, .skippedMissingHandlers, .downloadFailed, .hashMismatch,
            .signatureDownloadFailed, .signatureMalformed, .signatureInvalid, .storageLimit:
            true
        default: false
        }
    }

    /// Whether the entry passed (installed, updated, already stored, or verified).
    public var isSuccess: Bool { self == .installed || self == .updated || self == .upToDate || self == .verified }
}

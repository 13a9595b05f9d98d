/// Why a manifest was rejected as a whole (SYNC.md §3.6, M2–M6): the wire code in `error` of
/// `verify-manifest --json` and in ``SyncError/reason``.
///
/// ```swift
/// if error.reason == .manifestSignatureInvalid { alertSecurityTeam() }
/// ```
public struct ManifestRejectionReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The `snake_case` wire code.
    public let rawValue: String
    /// Wraps a code.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The wire code.
    public var description: String { rawValue }

    /// M2: the manifest is larger than 5 MiB.
    public static let tooLarge = ManifestRejectionReason(rawValue: "too_large")
    /// M3 or M5: no LF, a bad signature line, or a body that is not the §3.3 JSON object.
    public static let manifestMalformed = ManifestRejectionReason(rawValue: "manifest_malformed")
    /// M4: no configured root key verifies the body.
    public static let manifestSignatureInvalid = ManifestRejectionReason(rawValue: "manifest_signature_invalid")
    /// M6: `expires_at` is not after now.
    public static let manifestExpired = ManifestRejectionReason(rawValue: "manifest_expired")
}

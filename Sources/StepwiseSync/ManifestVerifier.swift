import StepwiseExecution
import StepwiseCrypto

/// Manifest-level verification, steps M1 and M3–M8 of SYNC.md §3.6, as pure functions.
///
/// Fetching (M2) is not done here, but the size cap is checked again. Replay protection (M7)
/// compares the verified manifest with the last applied one (``replayDecision(for:lastAppliedVersion:lastAppliedBody:)``).
///
/// ```swift
/// let verifier = ManifestVerifier(rootKeys: roots)
/// let verified = try verifier.verify(fileBytes, now: clock.now())
/// switch ManifestVerifier.replayDecision(for: verified, lastAppliedVersion: state.lastAppliedVersion,
///                                        lastAppliedBody: state.manifestBody) {
/// case .accept: …   case .notModified: …   case .stale: …
/// }
/// ```
public struct ManifestVerifier: Sendable, Hashable {
    /// What M7 decides.
    public enum ReplayDecision: String, Sendable, Hashable {
        /// A newer manifest: accept and apply it.
        case accept
        /// The applied manifest again, byte for byte.
        case notModified = "not_modified"
        /// Older than the applied one, or the same version with other bytes.
        case stale
    }

    /// The largest manifest file accepted (5 MiB).
    public static let defaultMaxManifestBytes = 5 * 1_048_576

    /// The configured root keys.
    public var rootKeys: ManifestRootKeys
    /// The size cap (M2).
    public var maxManifestBytes: Int

    /// Creates a verifier.
    public init(rootKeys: ManifestRootKeys, maxManifestBytes: Int = ManifestVerifier.defaultMaxManifestBytes) {
        self.rootKeys = rootKeys
        self.maxManifestBytes = maxManifestBytes
    }

    /// Runs M1, the M2 size cap, M3, M4, M5, M6 and M8 on a downloaded manifest file.
    ///
    /// - Parameters:
    ///   - file: the manifest file bytes as received.
    ///   - now: the current time, Unix ms (for `expires_at`).
    /// - Returns: the verified manifest with its trusted signing keys and warnings.
    /// - Throws: ``SyncError`` `syncNotConfigured` (no root key), or `manifestRejected` with
    ///   reason `too_large`, `manifest_malformed`, `manifest_signature_invalid` or
    ///   `manifest_expired`. Nothing else; a dropped signing key (M8) is a warning, not an error.
    public func verify(_ file: [UInt8], now: Int64) throws(SyncError) -> VerifiedManifest {
        guard rootKeys.isConfigured else {
            throw SyncError(.syncNotConfigured, "no root public key is configured (rootPublicKey is empty)")
        }
        guard file.count <= maxManifestBytes else {
            throw .manifestRejected(.tooLarge, "manifest is \(file.count) bytes, more than the limit of \(maxManifestBytes)")
        }
        let split = try SignedManifestFile(bytes: file)
        guard rootKeys.verifies(split.signature, over: split.body) else {
            throw .manifestRejected(.manifestSignatureInvalid, "no configured root key verifies the manifest signature")
        }
        let manifest = try Manifest(body: split.body)
        if let expiresAt = manifest.expiresAt, expiresAt <= now {
            throw .manifestRejected(
                .manifestExpired,
                "manifest expired at \(RFC3339.string(fromMilliseconds: expiresAt)) (now \(RFC3339.string(fromMilliseconds: now)))")
        }
        var trusted: [VerifiedManifest.TrustedKey] = []
        var warnings: [String] = []
        for key in manifest.signingKeys {
            if let bytes = Base64.decode(key.publicKey), let decoded = try? Ed25519PublicKey(rawRepresentation: bytes) {
                trusted.append(.init(keyID: key.keyID, publicKey: decoded))
            } else {
                warnings.append("signing key '\(key.keyID)' dropped: public_key is not base64 of 32 bytes")
            }
        }
        return VerifiedManifest(manifest: manifest, body: split.body, signature: split.signature, trustedKeys: trusted, warnings: warnings)
    }

    /// M7: whether a verified manifest is newer than, equal to, or older than the applied one.
    ///
    /// - Parameters:
    ///   - verified: the manifest just verified.
    ///   - lastAppliedVersion: `manifest_version` of the last accepted manifest, `nil` if none.
    ///   - lastAppliedBody: its body bytes.
    /// - Returns: `accept` when newer (or nothing was applied), `notModified` for the same
    ///   version with identical bytes, `stale` otherwise.
    public static func replayDecision(
        for verified: VerifiedManifest, lastAppliedVersion: Int64?, lastAppliedBody: [UInt8]?
    ) -> ReplayDecision {
        guard let last = lastAppliedVersion else { return .accept }
        let version = verified.manifest.manifestVersion
        if version > last { return .accept }
        if version == last && lastAppliedBody == verified.body { return .notModified }
        return .stale
    }
}

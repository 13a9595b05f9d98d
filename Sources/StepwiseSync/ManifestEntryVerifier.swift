public import Foundation
public import StepwiseCrypto
public import StepwiseExecution
public import StepwiseSequences

/// The per-entry checks of SYNC.md §3.7 (E2–E12), each a pure function.
///
/// E1 is ``ManifestEntry/init(_:)``, E5 is ``ArtifactURLs`` with ``TransportPolicy``; E6 and E9
/// (downloads) and E13–E14 (storage) are done by ``ManifestSynchronizer`` and
/// ``ManifestInspector``, which call these in order and stop at the first failure.
///
/// ```swift
/// try ManifestEntryVerifier.checkSDKVersion(entry, sdkVersion: "0.1.0")        // E2
/// try ManifestEntryVerifier.checkHash(bytes, entry: entry)                     // E7
/// let key = try ManifestEntryVerifier.signingKey(for: entry, in: verified)      // E8
/// let signature = try ManifestEntryVerifier.decodeSignature(sigBytes)           // E10
/// try ManifestEntryVerifier.checkSignature(signature, of: bytes, by: key)       // E11
/// ```
public enum ManifestEntryVerifier {
    /// E2: `min_sdk_version` ≤ `sdkVersion`.
    ///
    /// - Throws: ``EntryFailure`` `skipped_sdk_version` (also for a non-numeric component on
    ///   either side: fails closed). Nothing else.
    public static func checkSDKVersion(_ entry: ManifestEntry, sdkVersion: String) throws(EntryFailure) {
        guard let minimum = entry.minSDKVersion else { return }
        guard SDKVersion.satisfies(minimum: minimum, current: sdkVersion) else {
            throw EntryFailure(.skippedSDKVersion, "needs SDK \(minimum), this is \(sdkVersion)")
        }
    }

    /// E3: every `required_handlers` name is registered.
    ///
    /// - Throws: ``EntryFailure`` `skipped_missing_handlers` listing the missing names. Nothing else.
    public static func checkRequiredHandlers(_ entry: ManifestEntry, registered: Set<String>) throws(EntryFailure) {
        let missing = Array(Set(entry.requiredHandlers).subtracting(registered)).sorted()
        guard missing.isEmpty else {
            throw EntryFailure(.skippedMissingHandlers, "unregistered handlers: \(missing.joined(separator: ", "))")
        }
    }

    /// E4: the (name, version) against what is stored.
    ///
    /// Same bytes stored → `up_to_date`; other bytes → `version_conflict`; a higher version of
    /// the name stored → `superseded`. Retired versions do not count as up to date or
    /// superseding (a re-listed retired version is installed again, which un-retires it), but
    /// still conflict.
    ///
    /// - Throws: ``EntryFailure`` with one of the three outcomes. Nothing else.
    public static func checkStoredVersions(_ entry: ManifestEntry, stored: [StoredSequence]) throws(EntryFailure) {
        let sameName = stored.filter { $0.key.hasName(entry.name) }
        if let same = sameName.first(where: { $0.key.version == entry.version }) {
            if same.sha256 != entry.sha256 {
                throw EntryFailure(.versionConflict, "\(entry.name) v\(entry.version) is stored with other content")
            }
            if !same.isRetired { throw EntryFailure(.upToDate, "\(entry.name) v\(entry.version) is already stored") }
        }
        if let higher = sameName.filter({ $0.key.version > entry.version && !$0.isRetired }).map(\.key.version).max() {
            throw EntryFailure(.superseded, "\(entry.name) v\(higher) is stored, higher than v\(entry.version)")
        }
    }

    /// E5: the entry's URLs resolve and pass the transport rules.
    ///
    /// - Returns: the sequence and signature URLs.
    /// - Throws: ``EntryFailure`` `invalid_entry`. Nothing else.
    public static func artifactURLs(
        for entry: ManifestEntry, manifestURL: URL, policy: TransportPolicy
    ) throws(EntryFailure) -> ArtifactURLs {
        let urls = try ArtifactURLs(entryURL: entry.url, manifestURL: manifestURL)
        if let reason = policy.refusal(for: urls.sequence) { throw EntryFailure(.invalidEntry, reason) }
        if let reason = policy.refusal(for: urls.signature) { throw EntryFailure(.invalidEntry, reason) }
        return urls
    }

    /// E7: lowercase hex SHA-256 of `bytes` equals `entry.sha256`.
    ///
    /// - Throws: ``EntryFailure`` `hash_mismatch`. Nothing else.
    public static func checkHash(_ bytes: [UInt8], entry: ManifestEntry) throws(EntryFailure) {
        let digest = SHA256.hexDigest(of: bytes)
        guard digest == entry.sha256 else {
            throw EntryFailure(.hashMismatch, "downloaded bytes have SHA-256 \(digest), the manifest says \(entry.sha256)")
        }
    }

    /// E8: `signing_key_id` is a trusted key of this manifest.
    ///
    /// - Returns: the key.
    /// - Throws: ``EntryFailure`` `unknown_signing_key`. Nothing else.
    public static func signingKey(
        for entry: ManifestEntry, in trustedKeys: [VerifiedManifest.TrustedKey]
    ) throws(EntryFailure) -> Ed25519PublicKey {
        guard let key = VerifiedManifest.key(id: entry.signingKeyID, in: trustedKeys) else {
            throw EntryFailure(.unknownSigningKey, "signing key '\(entry.signingKeyID)' is not a trusted key of this manifest")
        }
        return key
    }

    /// E10: the `.sig` file, trimmed of ASCII whitespace, is base64 of exactly 64 bytes.
    ///
    /// - Returns: the signature.
    /// - Throws: ``EntryFailure`` `signature_malformed`. Nothing else.
    public static func decodeSignature(_ file: [UInt8]) throws(EntryFailure) -> [UInt8] {
        var text = file[...]
        while let b = text.first, b == 0x20 || (0x09...0x0D).contains(b) { text = text.dropFirst() }
        while let b = text.last, b == 0x20 || (0x09...0x0D).contains(b) { text = text.dropLast() }
        guard text.allSatisfy({ $0 < 0x80 }), let signature = Base64.decode(String(decoding: text, as: UTF8.self)) else {
            throw EntryFailure(.signatureMalformed, "the .sig file is not base64")
        }
        guard signature.count == Ed25519.signatureLength else {
            throw EntryFailure(.signatureMalformed, "the .sig file decodes to \(signature.count) bytes, expected 64")
        }
        return signature
    }

    /// E11: Ed25519 verification of the sequence bytes.
    ///
    /// - Throws: ``EntryFailure`` `signature_invalid`. Nothing else.
    public static func checkSignature(_ signature: [UInt8], of bytes: [UInt8], by key: Ed25519PublicKey) throws(EntryFailure) {
        guard key.isValidSignature(signature, for: bytes) else {
            throw EntryFailure(.signatureInvalid, "the signature does not verify with the entry's signing key")
        }
    }

    /// E12: the bytes are a valid sequence (SEMANTICS §1.6) with the entry's name and version,
    /// and (when `registeredHandlers` is given) every handler it names is registered.
    ///
    /// - Parameters:
    ///   - maxBytes: the document size limit.
    ///   - registeredHandlers: `nil` skips the handler check (`verify-manifest`).
    /// - Returns: the compiled sequence.
    /// - Throws: ``EntryFailure`` `invalid_sequence`, or `skipped_missing_handlers`. Nothing else.
    public static func checkSequence(
        _ bytes: [UInt8], entry: ManifestEntry, maxBytes: Int, registeredHandlers: Set<String>?
    ) throws(EntryFailure) -> CompiledSequence {
        let result = SequenceLoader.load(bytes, limits: SequenceLimits(maxDocumentBytes: maxBytes))
        guard let sequence = result.sequence else {
            let n = result.problems.count
            let shown = result.problems.prefix(3).map(\.description).joined(separator: "; ")
            throw EntryFailure(.invalidSequence, "the sequence is invalid (\(n) problem\(n == 1 ? "" : "s")): \(shown)")
        }
        guard sequence.name == entry.name, sequence.version == entry.version else {
            throw EntryFailure(
                .invalidSequence,
                "the document is '\(sequence.name)' v\(sequence.version), the entry says '\(entry.name)' v\(entry.version)")
        }
        if let registeredHandlers {
            let missing = sequence.handlerNames.filter { !registeredHandlers.contains($0) }
            if !missing.isEmpty {
                throw EntryFailure(.skippedMissingHandlers, "unregistered handlers: \(missing.joined(separator: ", "))")
            }
        }
        return sequence
    }
}

public import StepwiseCrypto

/// A manifest that passed M3–M6 and M8: root-signed, well-formed, unexpired, with its usable
/// signing keys.
///
/// ```swift
/// let verified = try verifier.verify(fileBytes, now: clock.now())
/// verified.signingKey(id: "seq-1")   // the key, or nil when not listed or dropped at M8
/// ```
public struct VerifiedManifest: Sendable, Hashable {
    /// A signing key that decoded at M8.
    public struct TrustedKey: Sendable, Hashable {
        /// `key_id`.
        public let keyID: String
        /// The decoded key.
        public let publicKey: Ed25519PublicKey

        /// Creates a trusted key.
        public init(keyID: String, publicKey: Ed25519PublicKey) {
            self.keyID = keyID
            self.publicKey = publicKey
        }
    }

    /// The parsed body.
    public let manifest: Manifest
    /// The body bytes exactly as signed.
    public let body: [UInt8]
    /// The root signature over ``body``.
    public let signature: [UInt8]
    /// The keys that may sign sequences, in manifest order (those failing M8 left out).
    public let trustedKeys: [TrustedKey]
    /// One message per dropped key.
    public let warnings: [String]

    /// Creates a verified manifest (normally done by ``ManifestVerifier``).
    public init(manifest: Manifest, body: [UInt8], signature: [UInt8], trustedKeys: [TrustedKey], warnings: [String]) {
        self.manifest = manifest
        self.body = body
        self.signature = signature
        self.trustedKeys = trustedKeys
        self.warnings = warnings
    }

    /// The trusted key with this id, or `nil` (E8).
    public func signingKey(id: String) -> Ed25519PublicKey? { Self.key(id: id, in: trustedKeys) }

    /// The key of `keys` whose id has the bytes of `id` (ids are JSON strings: compared by
    /// their UTF-8 bytes, not Swift's canonical equivalence), or `nil`.
    static func key(id: String, in keys: [TrustedKey]) -> Ed25519PublicKey? {
        keys.first { $0.keyID.utf8.elementsEqual(id.utf8) }?.publicKey
    }
}

internal import CSodium

/// An Ed25519 private key, held as its 32-byte seed (RFC 8032 §5.1.5).
///
/// Signing is deterministic: the same seed and message always give the same signature. The key
/// never appears in `description`, `debugDescription` or reflection output.
///
/// ```swift
/// let key = Ed25519PrivateKey.generate()
/// let signature = key.signature(for: body)            // 64 bytes
/// key.publicKey.isValidSignature(signature, for: body) // true
/// ```
///
/// - Important: Treat ``seedRepresentation`` as a secret: write it only to a file readable by
///   its owner (mode 0600) and never log it.
public struct Ed25519PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let seed: [UInt8]
    /// The matching public key.
    public let publicKey: Ed25519PublicKey

    /// A key from its 32-byte seed.
    ///
    /// - Throws: ``CryptoError`` `invalidKey` when `seed` is not 32 bytes. Nothing else.
    public init(seed: [UInt8]) throws(CryptoError) {
        guard seed.count == Ed25519.seedLength else {
            throw CryptoError(.invalidKey, "an Ed25519 seed is 32 bytes, got \(seed.count)")
        }
        self.seed = seed
        var secret = Self.expandedSecretKey(seed: seed)
        defer { Self.wipe(&secret.secretKey) }
        // The public key cannot be malformed here: libsodium derived it from a 32-byte seed.
        publicKey = try Ed25519PublicKey(rawRepresentation: secret.publicKey)
    }

    /// A fresh key from libsodium's CSPRNG (`randombytes_buf`).
    ///
    /// - Returns: the new key. Never throws.
    public static func generate() -> Ed25519PrivateKey {
        Sodium.ensureInitialized()
        var seed = [UInt8](repeating: 0, count: Ed25519.seedLength)
        seed.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        // A 32-byte seed always makes a key.
        return try! Ed25519PrivateKey(seed: seed)
    }

    /// The 32-byte seed: the whole secret.
    public var seedRepresentation: [UInt8] { seed }

    /// The detached 64-byte Ed25519 signature of `message`.
    ///
    /// - Returns: the signature. Never throws.
    public func signature(for message: [UInt8]) -> [UInt8] {
        var secret = Self.expandedSecretKey(seed: seed)
        defer { Self.wipe(&secret.secretKey) }
        var signature = [UInt8](repeating: 0, count: Ed25519.signatureLength)
        var length: UInt64 = 0
        Ed25519.withNonNullBytes(message) { pointer, count in
            _ = crypto_sign_detached(&signature, &length, pointer, UInt64(count), secret.secretKey)
        }
        return signature
    }

    /// `Ed25519PrivateKey(public: <base64>)`, without the secret.
    public var description: String { "Ed25519PrivateKey(public: \(publicKey.base64))" }

    /// Same as ``description``: the secret is never shown.
    public var debugDescription: String { description }

    /// Reflection shows only the public key.
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }

    /// libsodium's 64-byte secret key (seed ‖ public key) and the public key for `seed`.
    private static func expandedSecretKey(seed: [UInt8]) -> (secretKey: [UInt8], publicKey: [UInt8]) {
        Sodium.ensureInitialized()
        var publicKey = [UInt8](repeating: 0, count: Ed25519.publicKeyLength)
        var secretKey = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        return (secretKey, publicKey)
    }

    private static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress!, $0.count) }
    }
}

internal import CSodium

/// Ed25519 signatures (RFC 8032) computed by libsodium.
///
/// Verification is libsodium's `crypto_sign_verify_detached`, which rejects non-canonical `S`
/// values, small-order public keys and small-order `R` points, so every Project Wycheproof
/// Ed25519 vector gets its expected result.
///
/// ```swift
/// let key = Ed25519PrivateKey.generate()
/// let signature = key.signature(for: Array("hello".utf8))
/// Ed25519.isValidSignature(signature, of: Array("hello".utf8), publicKey: key.publicKey.rawRepresentation)  // true
/// ```
///
/// See <https://doc.libsodium.org/public-key_cryptography/public-key_signatures>.
public enum Ed25519 {
    /// Length of a raw public key in bytes.
    public static let publicKeyLength = 32
    /// Length of a private key seed in bytes.
    public static let seedLength = 32
    /// Length of a detached signature in bytes.
    public static let signatureLength = 64

    /// Whether `signature` is a valid detached Ed25519 signature of `message` by `publicKey`.
    ///
    /// Wrong lengths are simply invalid: a signature that is not 64 bytes or a key that is not
    /// 32 bytes returns `false` without calling libsodium.
    ///
    /// - Parameters:
    ///   - signature: the 64-byte signature.
    ///   - message: the signed bytes, exactly as signed.
    ///   - publicKey: the 32-byte raw public key.
    /// - Returns: `true` only for a signature libsodium accepts. Never throws.
    public static func isValidSignature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureLength, publicKey.count == publicKeyLength else { return false }
        Sodium.ensureInitialized()
        return withNonNullBytes(message) { messagePointer, messageLength in
            crypto_sign_verify_detached(signature, messagePointer, UInt64(messageLength), publicKey) == 0
        }
    }

    /// Calls `body` with a non-null pointer to `bytes` (a dummy byte for an empty array) and the length.
    static func withNonNullBytes<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
        if bytes.isEmpty {
            let dummy: [UInt8] = [0]
            return dummy.withUnsafeBufferPointer { body($0.baseAddress!, 0) }
        }
        return bytes.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }
}

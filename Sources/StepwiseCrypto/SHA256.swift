internal import CSodium

/// SHA-256 (FIPS 180-4) computed by libsodium.
///
/// ```swift
/// SHA256.hexDigest(of: Array("abc".utf8))
/// // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// ```
public enum SHA256 {
    /// Length of a digest in bytes.
    public static let digestLength = 32

    /// The 32-byte digest of `bytes`. Never throws.
    public static func digest(of bytes: [UInt8]) -> [UInt8] {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: digestLength)
        bytes.withUnsafeBufferPointer { input in
            _ = crypto_hash_sha256(&out, input.baseAddress, UInt64(input.count))
        }
        return out
    }

    /// The digest of `bytes` as 64 lowercase hex digits.
    public static func hexDigest(of bytes: [UInt8]) -> String {
        Hex.encode(digest(of: bytes))
    }
}

internal import CSodium
import StepwiseCrypto

/// Encrypts secrets at rest: the resolved credentials inside a `step_result` command.
///
/// Uses libsodium's `crypto_secretbox_easy` (XSalsa20-Poly1305,
/// <https://doc.libsodium.org/secret-key_cryptography/secretbox>) with a random 24-byte nonce
/// per message; a sealed box is `nonce ‖ ciphertext ‖ tag`. Keep the key apart from the
/// database (``SyncServer`` gets it from its caller; `stepwise serve` keeps it in a `0600`
/// file beside the database), so a copy of the database alone reveals no credential.
///
/// ```swift
/// let sealer = SecretSealer.random()
/// let box = sealer.seal(Array("sk-123".utf8))
/// let plain = sealer.open(box)   // the bytes again
/// ```
public struct SecretSealer: Sendable {
    /// The key length in bytes (32).
    public static let keyLength = 32
    private let key: [UInt8]

    /// Creates a sealer from a 32-byte key.
    ///
    /// - Parameter key: the key.
    /// - Throws: ``SyncServerError`` (``SyncServerError/Code/badRequest``) when the key is not
    ///   32 bytes.
    public init(key: [UInt8]) throws(SyncServerError) {
        guard key.count == Self.keyLength else {
            throw SyncServerError(.badRequest, "a secrets key is \(Self.keyLength) bytes, got \(key.count)")
        }
        self.key = key
    }

    /// A sealer with a fresh random key (secrets sealed with it cannot be opened after a
    /// restart; use it in tests or when nothing must survive).
    ///
    /// - Returns: the sealer.
    public static func random() -> SecretSealer {
        // A 32-byte key is always accepted.
        try! SecretSealer(key: randomBytes(keyLength))
    }

    /// `count` bytes from libsodium's CSPRNG (`randombytes_buf`).
    ///
    /// - Parameter count: how many bytes.
    /// - Returns: the bytes.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(sodium_init() >= 0, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// Encrypts and authenticates `plaintext`.
    ///
    /// - Parameter plaintext: the secret bytes.
    /// - Returns: `nonce ‖ ciphertext ‖ tag`.
    public func seal(_ plaintext: [UInt8]) -> [UInt8] {
        let nonceLength = Int(crypto_secretbox_NONCEBYTES)
        let nonce = Self.randomBytes(nonceLength)
        var box = [UInt8](repeating: 0, count: plaintext.count + Int(crypto_secretbox_MACBYTES))
        _ = crypto_secretbox_easy(&box, plaintext, UInt64(plaintext.count), nonce, key)
        return nonce + box
    }

    /// Decrypts a box made by ``seal(_:)`` with the same key.
    ///
    /// - Parameter sealed: `nonce ‖ ciphertext ‖ tag`.
    /// - Returns: the plaintext, or `nil` when the box is malformed, was altered, or was sealed
    ///   with another key.
    public func open(_ sealed: [UInt8]) -> [UInt8]? {
        let nonceLength = Int(crypto_secretbox_NONCEBYTES)
        let macLength = Int(crypto_secretbox_MACBYTES)
        guard sealed.count >= nonceLength + macLength else { return nil }
        let nonce = Array(sealed[..<nonceLength])
        let box = Array(sealed[nonceLength...])
        var plaintext = [UInt8](repeating: 0, count: box.count - macLength)
        guard crypto_secretbox_open_easy(&plaintext, box, UInt64(box.count), nonce, key) == 0 else { return nil }
        return plaintext
    }
}

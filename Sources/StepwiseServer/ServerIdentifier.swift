import StepwiseCrypto

/// Random identifiers for approvals, commands and generated API keys.
public enum ServerIdentifier {
    /// A random (version 4) UUID in lowercase, from libsodium's CSPRNG.
    ///
    /// ```swift
    /// ServerIdentifier.make()   // "3b241101-e2bb-4255-8caf-4136c566a962"
    /// ```
    ///
    /// - Returns: the UUID text.
    public static func make() -> String {
        var bytes = SecretSealer.randomBytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Hex.encode(bytes)
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// A new API key: `sk_` and 32 random bytes in lowercase hex.
    ///
    /// - Returns: the key.
    public static func makeAPIKey() -> String {
        "sk_" + Hex.encode(SecretSealer.randomBytes(32))
    }
}

import StepwiseExecution
public import StepwiseCrypto

/// The configured root keys that may sign manifests (SYNC.md §3.1, §3.9).
///
/// Built from `rootPublicKey` and `additionalRootPublicKeys` (SEMANTICS §6.1): each is base64 of
/// 32 raw bytes, 64 hex digits, or base64 SPKI DER. An empty `rootPublicKey` means manifest
/// sync is not configured (``isConfigured`` is `false`; a sync throws `syncNotConfigured`).
///
/// ```swift
/// let roots = try ManifestRootKeys(rootPublicKey: config.rootPublicKey,
///                                  additionalRootPublicKeys: config.additionalRootPublicKeys)
/// ```
public struct ManifestRootKeys: Sendable, Hashable {
    /// The keys, primary first. Empty when not configured.
    public let keys: [Ed25519PublicKey]

    /// Parses the configured keys.
    ///
    /// - Parameters:
    ///   - rootPublicKey: the primary root; `""` = not configured (the additional keys are then
    ///     still checked but not used).
    ///   - additionalRootPublicKeys: further roots for rotation; empty strings are ignored.
    /// - Throws: ``SyncError`` `invalidInput` naming which key is malformed (never its text).
    public init(rootPublicKey: String, additionalRootPublicKeys: [String] = []) throws(SyncError) {
        var keys: [Ed25519PublicKey] = []
        let primary = rootPublicKey.strippingASCIIWhitespace()
        if !primary.isEmpty {
            do { keys.append(try Ed25519PublicKey(parsing: primary)) } catch {
                throw SyncError(.invalidInput, "rootPublicKey is malformed: \(error.message)")
            }
        }
        for (i, text) in additionalRootPublicKeys.enumerated() {
            let trimmed = text.strippingASCIIWhitespace()
            if trimmed.isEmpty { continue }
            do {
                let key = try Ed25519PublicKey(parsing: trimmed)
                if !primary.isEmpty && !keys.contains(key) { keys.append(key) }
            } catch {
                throw SyncError(.invalidInput, "additionalRootPublicKeys[\(i)] is malformed: \(error.message)")
            }
        }
        self.keys = keys
    }

    /// Root keys given directly (first = primary).
    public init(_ keys: [Ed25519PublicKey]) { self.keys = keys }

    /// Whether at least one root key is configured.
    public var isConfigured: Bool { !keys.isEmpty }

    /// Whether any root key verifies `signature` over `body` (M4).
    public func verifies(_ signature: [UInt8], over body: [UInt8]) -> Bool {
        keys.contains { $0.isValidSignature(signature, for: body) }
    }
}

extension String {
    /// The string without leading and trailing ASCII whitespace (space, tab, LF, VT, FF, CR).
    func strippingASCIIWhitespace() -> String {
        let scalars = unicodeScalars
        func isSpace(_ s: Unicode.Scalar) -> Bool { s == " " || (0x09...0x0D).contains(s.value) }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}

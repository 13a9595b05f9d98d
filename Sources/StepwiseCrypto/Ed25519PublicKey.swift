/// An Ed25519 public key (32 raw bytes), parsed from any format Stepwise accepts.
///
/// Text forms (SEMANTICS §6.1, `rootPublicKey`): base64 of the 32 raw bytes, 64 hex digits, or
/// base64 of the 44-byte SubjectPublicKeyInfo DER (`MCowBQYDK2VwAyEA…`, RFC 8410), optionally
/// wrapped in a PEM `PUBLIC KEY` block. Surrounding whitespace is ignored.
///
/// ```swift
/// let root = try Ed25519PublicKey(parsing: "Nz5XgYPm9wWMq6BzPJWhG3hbAqqz7xG2+HwWLMbcr0k=")
/// root.isValidSignature(signature, for: body)
/// ```
public struct Ed25519PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The 12-byte DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410 §4).
    static let spkiPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    /// The 32 raw key bytes.
    public let rawRepresentation: [UInt8]

    /// A key from its 32 raw bytes.
    ///
    /// - Throws: ``CryptoError`` `invalidKey` when `rawRepresentation` is not 32 bytes. Nothing else.
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        guard rawRepresentation.count == Ed25519.publicKeyLength else {
            throw CryptoError(.invalidKey, "an Ed25519 public key is 32 bytes, got \(rawRepresentation.count)")
        }
        self.rawRepresentation = rawRepresentation
    }

    /// A key from text: base64 of 32 raw bytes, 64 hex digits, or base64 (or PEM) SPKI DER.
    ///
    /// - Throws: ``CryptoError`` `invalidKey` naming the accepted formats. Nothing else.
    public init(parsing text: String) throws(CryptoError) {
        var trimmed = text.trimmingASCIIWhitespace()
        if trimmed.hasPrefix("-----BEGIN PUBLIC KEY-----") && trimmed.hasSuffix("-----END PUBLIC KEY-----") {
            trimmed = String(trimmed.dropFirst("-----BEGIN PUBLIC KEY-----".count).dropLast("-----END PUBLIC KEY-----".count))
            trimmed = String(trimmed.unicodeScalars.filter { !$0.isASCIIWhitespace })
        }
        if trimmed.utf8.count == 64, let bytes = Hex.decode(trimmed) {
            self.rawRepresentation = bytes
            return
        }
        if let bytes = Base64.decode(trimmed) {
            if bytes.count == Ed25519.publicKeyLength {
                self.rawRepresentation = bytes
                return
            }
            if bytes.count == Self.spkiPrefix.count + Ed25519.publicKeyLength, bytes.starts(with: Self.spkiPrefix) {
                self.rawRepresentation = Array(bytes.dropFirst(Self.spkiPrefix.count))
                return
            }
            throw CryptoError(
                .invalidKey,
                "base64 public key decodes to \(bytes.count) bytes; expected 32 raw bytes or a 44-byte Ed25519 SPKI")
        }
        throw CryptoError(
            .invalidKey, "public key is neither base64 (32 raw bytes or Ed25519 SPKI DER) nor 64 hex digits")
    }

    /// Base64 (with padding) of the 32 raw bytes: the form manifests use.
    public var base64: String { Base64.encode(rawRepresentation) }

    /// The 44-byte SubjectPublicKeyInfo DER encoding (RFC 8410).
    public var spkiDER: [UInt8] { Self.spkiPrefix + rawRepresentation }

    /// Whether `signature` is a valid detached signature of `message` by this key.
    ///
    /// - Returns: `false` for a signature of the wrong length. Never throws.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        Ed25519.isValidSignature(signature, of: message, publicKey: rawRepresentation)
    }

    /// `Ed25519PublicKey(<base64>)`; public keys are not secret.
    public var description: String { "Ed25519PublicKey(\(base64))" }
}

extension Unicode.Scalar {
    /// Space, tab, LF, VT, FF or CR.
    var isASCIIWhitespace: Bool { value == 0x20 || (0x09...0x0D).contains(value) }
}

extension String {
    /// The string without leading and trailing ASCII whitespace.
    func trimmingASCIIWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isASCIIWhitespace }),
            let last = scalars.lastIndex(where: { !$0.isASCIIWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}

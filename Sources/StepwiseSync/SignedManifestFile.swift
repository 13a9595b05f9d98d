public import StepwiseCrypto

/// A manifest file split into its signature and its body (SYNC.md §3.2).
///
/// `file = base64(signature) LF body`: the split is at the first `0x0A`; only the signature line
/// is trimmed of ASCII whitespace (so a CR before the LF is fine); the body is kept byte for byte.
///
/// ```swift
/// let file = try SignedManifestFile(bytes: downloaded)
/// roots.verifies(file.signature, over: file.body)
/// let bytes = SignedManifestFile.make(body: body, signedBy: rootKey)   // publisher side
/// ```
public struct SignedManifestFile: Sendable, Hashable {
    /// The 64-byte Ed25519 signature.
    public let signature: [UInt8]
    /// The signed body: every byte after the first LF.
    public let body: [UInt8]

    /// Splits a manifest file (M3).
    ///
    /// - Throws: ``SyncError`` `manifestRejected(manifest_malformed)` when there is no LF or the
    ///   signature line is not base64 of exactly 64 bytes. Nothing else.
    public init(bytes: [UInt8]) throws(SyncError) {
        guard let newline = bytes.firstIndex(of: 0x0A) else {
            throw .manifestRejected(.manifestMalformed, "manifest file has no newline after the signature line")
        }
        var line = bytes[..<newline]
        while let first = line.first, Self.isASCIIWhitespace(first) { line = line.dropFirst() }
        while let last = line.last, Self.isASCIIWhitespace(last) { line = line.dropLast() }
        guard line.allSatisfy({ $0 < 0x80 }), let decoded = Base64.decode(String(decoding: line, as: UTF8.self)) else {
            throw .manifestRejected(.manifestMalformed, "manifest signature line is not base64")
        }
        guard decoded.count == Ed25519.signatureLength else {
            throw .manifestRejected(
                .manifestMalformed, "manifest signature line decodes to \(decoded.count) bytes, expected 64")
        }
        signature = decoded
        body = Array(bytes[(newline + 1)...])
    }

    /// The manifest file for `body`: base64 of the Ed25519 signature by `key`, LF, then `body`.
    ///
    /// - Returns: the file bytes. Never throws.
    public static func make(body: [UInt8], signedBy key: Ed25519PrivateKey) -> [UInt8] {
        Array(Base64.encode(key.signature(for: body)).utf8) + [0x0A] + body
    }

    private static func isASCIIWhitespace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
}

public import StepwiseSequences

/// A sequence that passed E1–E12: hash, trusted key, signature, validation, name and version.
///
/// This is what a ``SequenceInstaller`` receives; it stores ``bytes`` unchanged with origin
/// `manifest` and ``sha256``.
///
/// ```swift
/// let stored = try await installer.install(verified)
/// ```
public struct VerifiedSequence: Sendable {
    /// The manifest entry it was listed under.
    public let entry: ManifestEntry
    /// The sequence bytes exactly as downloaded.
    public let bytes: [UInt8]
    /// Lowercase hex SHA-256 of ``bytes`` (equal to `entry.sha256`).
    public let sha256: String
    /// The validated, compiled document.
    public let sequence: CompiledSequence

    /// Creates a verified sequence (normally done by ``ManifestEntryVerifier``).
    public init(entry: ManifestEntry, bytes: [UInt8], sha256: String, sequence: CompiledSequence) {
        self.entry = entry
        self.bytes = bytes
        self.sha256 = sha256
        self.sequence = sequence
    }
}

public import StepwiseExecution

/// The settings manifest sync uses, normally taken from the engine's configuration.
///
/// ```swift
/// let configuration = try ManifestSyncConfiguration(engineConfiguration: engine.configuration)
/// ```
public struct ManifestSyncConfiguration: Sendable, Hashable {
    /// Largest `.sig` file (4 KiB).
    public static let maxSignatureBytes = 4096
    /// Largest sequence download before `maxSequenceSizeBytes` (5 MiB).
    public static let maxSequenceDownloadBytes = 5 * 1_048_576

    /// Keys that may sign manifests.
    public var rootKeys: ManifestRootKeys
    /// Compared with `min_sdk_version` (E2).
    public var sdkVersion: String
    /// Allow `http://localhost` and `http://127.0.0.1`.
    public var allowInsecureLocalhost: Bool
    /// Bound on each HTTP request, in milliseconds.
    public var operationTimeoutMs: UInt64
    /// Largest sequence document (the download cap is min(this, 5 MiB)).
    public var maxSequenceSizeBytes: UInt64
    /// Stored versions allowed (0 = unlimited), for E13.
    public var maxStoredSequences: UInt32
    /// Largest manifest file.
    public var maxManifestBytes: Int

    /// Creates a configuration with the engine's defaults for anything not given.
    public init(
        rootKeys: ManifestRootKeys, sdkVersion: String = StepwiseVersion.current, allowInsecureLocalhost: Bool = false,
        operationTimeoutMs: UInt64 = 10_000, maxSequenceSizeBytes: UInt64 = 1_048_576, maxStoredSequences: UInt32 = 50,
        maxManifestBytes: Int = ManifestVerifier.defaultMaxManifestBytes
    ) {
        self.rootKeys = rootKeys
        self.sdkVersion = sdkVersion
        self.allowInsecureLocalhost = allowInsecureLocalhost
        self.operationTimeoutMs = operationTimeoutMs
        self.maxSequenceSizeBytes = maxSequenceSizeBytes
        self.maxStoredSequences = maxStoredSequences
        self.maxManifestBytes = maxManifestBytes
    }

    /// The manifest settings of an engine configuration (`rootPublicKey`,
    /// `additionalRootPublicKeys`, `sdkVersion`, `allowInsecureLocalhost`, `operationTimeoutMs`,
    /// `maxSequenceSizeBytes`, `maxStoredSequences`).
    ///
    /// - Throws: ``SyncError`` `invalidInput` when a root key is malformed. An empty
    ///   `rootPublicKey` is not an error here (sync then throws `syncNotConfigured`).
    public init(engineConfiguration c: EngineConfiguration) throws(SyncError) {
        self.init(
            rootKeys: try ManifestRootKeys(rootPublicKey: c.rootPublicKey, additionalRootPublicKeys: c.additionalRootPublicKeys),
            sdkVersion: c.sdkVersion, allowInsecureLocalhost: c.allowInsecureLocalhost,
            operationTimeoutMs: c.operationTimeoutMs, maxSequenceSizeBytes: c.maxSequenceSizeBytes,
            maxStoredSequences: c.maxStoredSequences)
    }

    /// The sequence download cap: min(`maxSequenceSizeBytes`, 5 MiB).
    public var sequenceDownloadCap: Int {
        Int(min(maxSequenceSizeBytes, UInt64(Self.maxSequenceDownloadBytes)))
    }
}

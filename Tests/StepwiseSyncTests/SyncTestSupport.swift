import Foundation
import StepwiseCrypto
import StepwiseExecution
import StepwiseJSON
import StepwiseSequences
import StepwiseSync
import Synchronization
import Testing

/// The package root, found from this file's location.
func packageRoot(file: String = #filePath) -> URL {
    URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// The public TEST-ONLY keys of `Fixtures/signing/keys.json` (seed = SHA-256 of the label).
enum TestKeys {
    static let root = try! Ed25519PrivateKey(seed: SHA256.digest(of: Array("stepwise-test-root-key-v1".utf8)))
    static let sequence = try! Ed25519PrivateKey(seed: SHA256.digest(of: Array("stepwise-test-sequence-key-v1".utf8)))
    static let untrusted = try! Ed25519PrivateKey(seed: SHA256.digest(of: Array("stepwise-test-untrusted-key-v1".utf8)))
    static let rootID = "stepwise-test-root-1"
    static let sequenceID = "stepwise-test-seq-1"
    static let untrustedID = "stepwise-test-untrusted-1"
    /// A second root for rotation tests.
    static let newRoot = try! Ed25519PrivateKey(seed: SHA256.digest(of: Array("stepwise-test-root-key-v2".utf8)))
    static let newSequence = try! Ed25519PrivateKey(seed: SHA256.digest(of: Array("stepwise-test-sequence-key-v2".utf8)))

    static var roots: ManifestRootKeys { ManifestRootKeys([root.publicKey]) }
}

/// The eight handlers `onboarding-flow` needs.
let onboardingHandlers: Set<String> = [
    "collect_preferences", "complete_onboarding", "init_profile", "request_approval", "setup_notifications", "show_banner",
    "show_terms", "validate_email",
]

/// An in-memory ``SequenceInstaller``: validates like the engine, keeps versions, retires,
/// evicts, and persists the sync state through its encoded form.
actor InMemorySequenceInstaller: SequenceInstaller {
    var handlers: Set<String>
    private(set) var stored: [SequenceKey: (StoredSequence, [UInt8])] = [:]
    /// Versions pinned by a (simulated) non-terminal instance.
    var referenced: Set<SequenceKey> = []
    private var encodedState: [UInt8]?
    private(set) var log: [String] = []
    var now: Int64
    /// Installs after which a storage error is thrown (nil: never).
    var failInstallsAfter: Int?
    private var installs = 0
    /// Whether saving the sync state fails.
    var failSaves = false

    init(handlers: Set<String> = onboardingHandlers, now: Int64 = 1_767_225_600_000) {
        self.handlers = handlers
        self.now = now
    }

    func registeredHandlerNames() -> Set<String> { handlers }

    func storedSequences() throws(StepwiseError) -> [StoredSequence] {
        stored.values.map(\.0).sorted { $0.key < $1.key }
    }

    func install(_ sequence: VerifiedSequence) throws(StepwiseError) -> StoredSequence {
        if let limit = failInstallsAfter, installs >= limit { throw StepwiseError(.storage, "disk full") }
        installs += 1
        try store(sequence.bytes, origin: "manifest")
        log.append("install \(sequence.entry.name) v\(sequence.entry.version)")
        return stored[SequenceKey(name: sequence.entry.name, version: sequence.entry.version)]!.0
    }

    /// Loads a sequence the way `loadSequence(json:)` does (origin `local`).
    @discardableResult
    func loadLocal(_ bytes: [UInt8]) throws(StepwiseError) -> SequenceKey { try store(bytes, origin: "local") }

    @discardableResult
    private func store(_ bytes: [UInt8], origin: String) throws(StepwiseError) -> SequenceKey {
        guard let compiled = SequenceLoader.load(bytes).sequence else { throw StepwiseError(.sequenceInvalid, "invalid") }
        let missing = compiled.handlerNames.filter { !handlers.contains($0) }
        if !missing.isEmpty { throw StepwiseError(.unregisteredHandler, "missing \(missing.joined(separator: ", "))") }
        let key = SequenceKey(name: compiled.name, version: compiled.version)
        let digest = SHA256.hexDigest(of: bytes)
        if var existing = stored[key] {
            guard existing.0.sha256 == digest else { throw StepwiseError(.conflict, "\(key) stored with other content") }
            existing.0.isRetired = false
            stored[key] = existing
            return key
        }
        now += 1
        stored[key] = (
            StoredSequence(key: key, isDeprecated: false, origin: origin, sha256: digest, installedAt: now), bytes
        )
        return key
    }

    func retire(_ key: SequenceKey) throws(StepwiseError) {
        log.append("retire \(key)")
        guard stored[key] != nil else { return }
        if referenced.contains(key) { stored[key]!.0.isRetired = true } else { stored[key] = nil }
    }

    func isReferenced(_ key: SequenceKey) throws(StepwiseError) -> Bool { referenced.contains(key) }

    func evict(_ key: SequenceKey) throws(StepwiseError) {
        guard !referenced.contains(key) else { throw StepwiseError(.invalidState, "\(key) is referenced") }
        log.append("evict \(key)")
        stored[key] = nil
    }

    func loadManifestSyncState() throws(StepwiseError) -> ManifestSyncState? {
        guard let encodedState else { return nil }
        do { return try ManifestSyncState(encoded: encodedState) } catch { throw error.stepwiseError }
    }

    func saveManifestSyncState(_ state: ManifestSyncState) throws(StepwiseError) {
        if failSaves { throw StepwiseError(.storage, "disk full") }
        encodedState = state.encoded()
    }

    // Test helpers.
    func setHandlers(_ names: Set<String>) { handlers = names }
    func setReferenced(_ keys: Set<SequenceKey>) { referenced = keys }
    func setFailInstallsAfter(_ n: Int?) { failInstallsAfter = n }
    func setFailSaves(_ fail: Bool) { failSaves = fail }
    func advance(to time: Int64) { now = time }
    /// Simulates an instance finishing: unpins it, and deletes it when retired (engine GC).
    func finishInstances(of key: SequenceKey) {
        referenced.remove(key)
        if stored[key]?.0.isRetired == true { stored[key] = nil }
    }
    var keys: [SequenceKey] { stored.keys.sorted() }
    func metadata(_ key: SequenceKey) -> StoredSequence? { stored[key]?.0 }
    var state: ManifestSyncState? { try? loadManifestSyncState() }
    func clearLog() { log = [] }
}

/// Records retry delays instead of sleeping.
final class SleepRecorder: Sendable {
    private let delays = Mutex<[UInt64]>([])
    var recorded: [UInt64] { delays.withLock { $0 } }
    var sleep: @Sendable (UInt64) async throws -> Void {
        { [self] ms in delays.withLock { $0.append(ms) } }
    }
}

/// A token provider with scripted tokens.
final class TestTokenProvider: TokenProvider {
    private let state = Mutex<(current: String, refreshed: String, refreshCalls: Int, currentCalls: Int)>(("t1", "t2", 0, 0))
    let fails: Bool
    init(fails: Bool = false) { self.fails = fails }
    func currentToken() async throws -> String {
        if fails { throw CancellationError() }
        return state.withLock {
            $0.currentCalls += 1
            return $0.current
        }
    }
    func refreshToken() async throws -> String {
        state.withLock {
            $0.refreshCalls += 1
            return $0.refreshed
        }
    }
    var refreshCalls: Int { state.withLock { $0.refreshCalls } }
    var currentCalls: Int { state.withLock { $0.currentCalls } }
}

/// A minimal valid sequence document.
func sequenceDocument(_ name: String, version: Int, handlers: [String] = ["h"], extra: String = "") -> [UInt8] {
    let blocks = handlers.enumerated().map { #"{"type":"step","id":"s\#($0.offset)","handler":"\#($0.element)"}"# }
    return Array(#"{"blocks":[\#(blocks.joined(separator: ","))],"name":"\#(name)","version":\#(version)\#(extra)}"#.utf8)
}

/// Builds signed manifests and serves their artifacts on an ``InMemoryManifestFetcher``.
struct ManifestBuilder {
    var base = "https://cdn.test/app/"
    var manifestVersion: Int64 = 1_000
    var generatedAt = "2026-01-01T00:00:00Z"
    var expiresAt: String?
    var signingKeys: [(String, String)] = [
        (TestKeys.sequenceID, TestKeys.sequence.publicKey.base64), (TestKeys.rootID, TestKeys.root.publicKey.base64),
    ]
    var entries: [JSONValue] = []
    var removed: [JSONValue] = []
    var extraMembers: JSONObject = [:]

    var manifestURL: URL { URL(string: base + "manifest.json")! }

    /// Adds an entry for `bytes` and serves the sequence and its signature.
    @discardableResult
    mutating func add(
        _ bytes: [UInt8], name: String, version: Int, signer: Ed25519PrivateKey = TestKeys.sequence,
        keyID: String = TestKeys.sequenceID, handlers: [String]? = nil, minSDK: String? = nil, url: String? = nil,
        on fetcher: InMemoryManifestFetcher
    ) -> String {
        let sha = SHA256.hexDigest(of: bytes)
        let path = url ?? "sequences/\(sha).json"
        var entry: JSONObject = [
            "name": .string(name), "version": .integer(Int64(version)), "url": .string(path),
            "signing_key_id": .string(keyID), "sha256": .string(sha),
        ]
        if let handlers { entry["required_handlers"] = .array(handlers.map(JSONValue.string)) }
        if let minSDK { entry["min_sdk_version"] = .string(minSDK) }
        entries.append(.object(entry))
        let absolute = URL(string: path, relativeTo: manifestURL)!.absoluteString
        fetcher.serve(absolute, body: bytes)
        let sigURL = absolute.hasSuffix(".json") ? String(absolute.dropLast(5)) + ".sig" : absolute + ".sig"
        fetcher.serve(sigURL, body: Array(Base64.encode(signer.signature(for: bytes)).utf8))
        return absolute
    }

    /// Adds a simple sequence `name` v`version` using handler `h`.
    @discardableResult
    mutating func addSequence(
        _ name: String, version: Int, signer: Ed25519PrivateKey = TestKeys.sequence, keyID: String = TestKeys.sequenceID,
        on fetcher: InMemoryManifestFetcher
    ) -> String {
        add(sequenceDocument(name, version: version), name: name, version: version, signer: signer, keyID: keyID, on: fetcher)
    }

    var bodyValue: JSONValue {
        var body: JSONObject = extraMembers
        body["generated_at"] = .string(generatedAt)
        body["manifest_version"] = .integer(manifestVersion)
        body["removed"] = .array(removed)
        body["sequences"] = .array(entries)
        body["signing_keys"] = .array(signingKeys.map { ["key_id": .string($0.0), "public_key": .string($0.1)] })
        if let expiresAt { body["expires_at"] = .string(expiresAt) }
        return .object(body)
    }

    var body: [UInt8] { CanonicalJSON.bytes(of: bodyValue) }

    func file(signedBy key: Ed25519PrivateKey = TestKeys.root) -> [UInt8] {
        SignedManifestFile.make(body: body, signedBy: key)
    }

    /// Serves the signed manifest at ``manifestURL``.
    func serve(on fetcher: InMemoryManifestFetcher, signedBy key: Ed25519PrivateKey = TestKeys.root, headers: [String: String] = [:]) {
        fetcher.serve(manifestURL.absoluteString, body: file(signedBy: key), headers: headers)
    }
}

/// A synchronizer over an in-memory fetcher and installer, with recorded retry delays.
struct SyncHarness {
    let fetcher = InMemoryManifestFetcher()
    let installer: InMemorySequenceInstaller
    let sleeper = SleepRecorder()
    let clock: VirtualClock
    let synchronizer: ManifestSynchronizer

    init(
        handlers: Set<String> = ["h"], maxStoredSequences: UInt32 = 50, roots: ManifestRootKeys = TestKeys.roots,
        sdkVersion: String = "0.1.0", maxSequenceSizeBytes: UInt64 = 1_048_576, now: Int64 = 1_767_225_600_000,
        allowInsecureLocalhost: Bool = false
    ) {
        installer = InMemorySequenceInstaller(handlers: handlers)
        clock = VirtualClock(start: now)
        synchronizer = ManifestSynchronizer(
            installer: installer,
            configuration: ManifestSyncConfiguration(
                rootKeys: roots, sdkVersion: sdkVersion, allowInsecureLocalhost: allowInsecureLocalhost,
                maxSequenceSizeBytes: maxSequenceSizeBytes, maxStoredSequences: maxStoredSequences),
            fetcher: fetcher, clock: clock, randomSeed: 42, sleep: sleeper.sleep)
    }

    func sync(_ url: URL, token: (any TokenProvider)? = nil) async throws(SyncError) -> SyncResult {
        try await synchronizer.sync(manifestURL: url, tokenProvider: token)
    }
}

extension SyncResult {
    /// `added/updated/removed/skipped/signature_failures`.
    var counts: [Int] { [added, updated, removed, skipped, signatureFailures] }
    /// The outcome names in order.
    var outcomes: [String] { entries.map(\.outcome.rawValue) }
}

/// Runs the engine until instance `id` is terminal (or `seconds` pass), so a loaded machine
/// (handlers scheduled late on a busy cooperative pool) cannot make a test flaky.
///
/// - Returns: the instance's state at the end.
@discardableResult
func runUntilTerminal(_ engine: StepwiseEngine, _ id: InstanceID, seconds: Int = 60) async throws -> InstanceState {
    try await runUntil(engine, id, seconds: seconds) { $0.isTerminal }
}

/// Runs the engine until instance `id`'s state satisfies `done` (or `seconds` pass).
///
/// - Returns: the instance's state at the end.
@discardableResult
func runUntil(
    _ engine: StepwiseEngine, _ id: InstanceID, seconds: Int = 60, _ done: (InstanceState) -> Bool
) async throws -> InstanceState {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        _ = try await engine.runUntilIdle(maxTicks: 50, timeBudgetMs: 1_000)
        let state = try await engine.instance(id).state
        if done(state) { return state }
        try await Task.sleep(for: .milliseconds(5))
    }
    return try await engine.instance(id).state
}

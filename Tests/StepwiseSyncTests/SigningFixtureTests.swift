import Foundation
import StepwiseCrypto
import StepwiseExecution
import StepwiseJSON
import StepwiseSync
import Testing

/// One folder of `Fixtures/signing/` with its `expected.json`.
struct SigningFixture: Sendable, CustomTestStringConvertible {
    let folder: String
    var testDescription: String { folder }

    static let all: [SigningFixture] = [
        "valid", "tampered/manifest-body-altered", "tampered/sequence-altered",
        "tampered/sequence-signed-by-untrusted-key", "tampered/entry-names-unlisted-key",
        "tampered/manifest-signed-by-untrusted-key",
    ].map(SigningFixture.init)

    var directory: URL { packageRoot().appendingPathComponent("Fixtures/signing/\(folder)", isDirectory: true) }
    var baseURL: String { "https://cdn.test/\(folder)/" }
    var manifestURL: URL { URL(string: baseURL + "manifest.json")! }

    var expected: JSONValue {
        get throws {
            try JSONParser.parse(Array(try Data(contentsOf: directory.appendingPathComponent("expected.json"))))
        }
    }
}

@Suite("Fixtures/signing: outcomes exactly as the README says")
struct SigningFixtureTests {
    @Test func fixturesAreByteIdenticalCopiesOfTheSharedOnes() throws {
        let shared = URL(fileURLWithPath: "/work/shared/fixtures/signing")
        guard FileManager.default.fileExists(atPath: shared.path) else { return }
        for fixture in SigningFixture.all {
            for name in ["manifest.json", "expected.json"] {
                let ours = try Data(contentsOf: fixture.directory.appendingPathComponent(name))
                let theirs = try Data(contentsOf: shared.appendingPathComponent(fixture.folder).appendingPathComponent(name))
                #expect(ours == theirs, "\(fixture.folder)/\(name)")
            }
        }
    }

    @Test func keysJSONMatchesTheSeedRule() throws {
        let data = try Data(contentsOf: packageRoot().appendingPathComponent("Fixtures/signing/keys.json"))
        let keys = try JSONParser.parse(Array(data))["keys"]?.arrayValue ?? []
        #expect(keys.count == 3)
        for key in keys {
            let label = key["label"]?.stringValue ?? ""
            let seed = SHA256.digest(of: Array(label.utf8))
            #expect(Hex.encode(seed) == key["seed_hex"]?.stringValue)
            let derived = try Ed25519PrivateKey(seed: seed).publicKey
            #expect(derived.base64 == key["public_key_base64"]?.stringValue)
            #expect(Hex.encode(derived.rawRepresentation) == key["public_key_hex"]?.stringValue)
        }
        #expect(TestKeys.root.publicKey.base64 == "Nz5XgYPm9wWMq6BzPJWhG3hbAqqz7xG2+HwWLMbcr0k=")
    }

    @Test(arguments: SigningFixture.all)
    func syncGivesTheExpectedOutcome(_ fixture: SigningFixture) async throws {
        let harness = SyncHarness(handlers: onboardingHandlers, roots: ManifestRootKeys([TestKeys.root.publicKey]))
        try harness.fetcher.serveDirectory(fixture.directory, at: fixture.baseURL)
        let expected = try fixture.expected
        if expected["sync"] == "throws" {
            let error = await #expect(throws: SyncError.self) { try await harness.sync(fixture.manifestURL) }
            #expect(error?.code == .manifestRejected)
            #expect(error?.reason?.rawValue == expected["error"]?.stringValue)
            #expect(await harness.installer.state == nil, "nothing recorded: no key, removal, ETag or version")
            #expect(await harness.installer.keys.isEmpty)
            #expect(await harness.installer.log.isEmpty)
            return
        }
        let result = try await harness.sync(fixture.manifestURL)
        #expect(result.status.rawValue == expected["status"]?.stringValue)
        let entries = result.entries.map { e -> JSONValue in
            ["name": .string(e.name), "version": .integer(Int64(e.version ?? -1)), "outcome": .string(e.outcome.rawValue)]
        }
        #expect(JSONValue.array(entries) == expected["entries"])
        let counts: JSONValue = [
            "added": .integer(Int64(result.added)), "updated": .integer(Int64(result.updated)),
            "removed": .integer(Int64(result.removed)), "skipped": .integer(Int64(result.skipped)),
            "signature_failures": .integer(Int64(result.signatureFailures)),
        ]
        #expect(counts == expected["counts"])
        let loaded = await harness.installer.keys.map { k -> JSONValue in
            ["name": .string(k.name), "version": .integer(Int64(k.version))]
        }
        #expect(JSONValue.array(loaded) == expected["loaded_sequences_after"])
        let state = try #require(await harness.installer.state)
        #expect(state.lastAppliedVersion == expected["last_manifest_version_after"]?.exactIntegerValue)
        if let keys = expected["trusted_signing_keys_after"] {
            #expect(JSONValue.array(state.trustedKeys.map { .string($0.keyID) }) == keys)
        }
        if expected["entries"]?[0]?["outcome"] == "hash_mismatch" {
            #expect(result.entries.first?.retryPending == true)
            #expect(state.pendingEntries.map(\.name) == ["onboarding-flow"])
        }
    }

    @Test(arguments: SigningFixture.all)
    func verifyManifestGivesTheSameOutcome(_ fixture: SigningFixture) async throws {
        let fetcher = FileManifestFetcher(root: fixture.directory)
        let report = try await ManifestInspector.inspect(
            manifestURL: fixture.directory.appendingPathComponent("manifest.json"), rootKeys: TestKeys.roots,
            fetcher: fetcher, allowFileURLs: true, sdkVersion: "0.1.0", now: 1_767_225_600_000)
        let expected = try fixture.expected
        if expected["sync"] == "throws" {
            #expect(report.status == .rejected)
            #expect(report.error?.rawValue == expected["error"]?.stringValue)
            #expect(report.entries.isEmpty)
        } else {
            let outcome = expected["entries"]?[0]?["outcome"]?.stringValue
            #expect(report.entries.map(\.outcome.rawValue) == [outcome == "installed" ? "verified" : outcome ?? ""])
        }
    }

    // The README's sequences of syncs.

    @Test func validTwiceIsNotModifiedAndDownloadsNothing() async throws {
        let fixture = SigningFixture(folder: "valid")
        let harness = SyncHarness(handlers: onboardingHandlers)
        try harness.fetcher.serveDirectory(fixture.directory, at: fixture.baseURL)
        _ = try await harness.sync(fixture.manifestURL)
        harness.fetcher.clearRequests()
        let second = try await harness.sync(fixture.manifestURL)
        #expect(second.status == .notModified)
        #expect(second.entries.isEmpty)
        #expect(harness.fetcher.requests.map(\.url.lastPathComponent) == ["manifest.json"])
    }

    @Test func validTwiceWithAnETagIsA304() async throws {
        let fixture = SigningFixture(folder: "valid")
        let harness = SyncHarness(handlers: onboardingHandlers)
        try harness.fetcher.serveDirectory(fixture.directory, at: fixture.baseURL)
        let manifest = try Data(contentsOf: fixture.directory.appendingPathComponent("manifest.json"))
        harness.fetcher.serve(fixture.manifestURL.absoluteString, body: [UInt8](manifest), headers: ["ETag": "\"m1\""])
        _ = try await harness.sync(fixture.manifestURL)
        #expect(await harness.installer.state?.etag == "\"m1\"")
        harness.fetcher.clearRequests()
        let second = try await harness.sync(fixture.manifestURL)
        #expect(second.status == .notModified)
        #expect(harness.fetcher.requests.count == 1)
        #expect(harness.fetcher.requests.first?.headers["if-none-match"] == "\"m1\"")
    }

    @Test func sameVersionWithADifferentBodyIsStale() async throws {
        let harness = SyncHarness(handlers: onboardingHandlers)
        let valid = SigningFixture(folder: "valid")
        let other = SigningFixture(folder: "tampered/entry-names-unlisted-key")
        try harness.fetcher.serveDirectory(valid.directory, at: valid.baseURL)
        _ = try await harness.sync(valid.manifestURL)
        let before = await harness.installer.state
        let bytes = try Data(contentsOf: other.directory.appendingPathComponent("manifest.json"))
        harness.fetcher.serve(valid.manifestURL.absoluteString, body: [UInt8](bytes))
        let result = try await harness.sync(valid.manifestURL)
        #expect(result.status == .stale)
        #expect(result.entries.isEmpty)
        #expect(await harness.installer.state == before, "nothing applied")
        #expect(result.warnings.contains { $0.contains("body differs") })
    }

    @Test func missingHandlersAreSkippedThenInstalledOnA304() async throws {
        let fixture = SigningFixture(folder: "valid")
        let harness = SyncHarness(handlers: [])
        try harness.fetcher.serveDirectory(fixture.directory, at: fixture.baseURL)
        let manifest = try Data(contentsOf: fixture.directory.appendingPathComponent("manifest.json"))
        harness.fetcher.serve(fixture.manifestURL.absoluteString, body: [UInt8](manifest), headers: ["ETag": "\"m1\""])
        let first = try await harness.sync(fixture.manifestURL)
        #expect(first.outcomes == ["skipped_missing_handlers"])
        #expect(first.counts == [0, 0, 0, 1, 0])
        #expect(first.entries.first?.retryPending == true)
        await harness.installer.setHandlers(onboardingHandlers)
        let second = try await harness.sync(fixture.manifestURL)
        #expect(second.status == .notModified)
        #expect(harness.fetcher.requests.last(where: { $0.url.lastPathComponent == "manifest.json" })?.headers["if-none-match"] == "\"m1\"")
        #expect(second.outcomes == ["installed"])
        #expect(second.counts == [1, 0, 0, 0, 0])
        #expect(await harness.installer.keys == [SequenceKey(name: "onboarding-flow", version: 1)])
        #expect(await harness.installer.state?.pendingEntries.isEmpty == true)
    }

    @Test func alteredSequenceIsRetriedAndInstalledOnceTheGoodBytesAreServed() async throws {
        let altered = SigningFixture(folder: "tampered/sequence-altered")
        let valid = SigningFixture(folder: "valid")
        let harness = SyncHarness(handlers: onboardingHandlers)
        try harness.fetcher.serveDirectory(altered.directory, at: altered.baseURL)
        let first = try await harness.sync(altered.manifestURL)
        #expect(first.outcomes == ["hash_mismatch"])
        try harness.fetcher.serveDirectory(valid.directory, at: altered.baseURL)
        let second = try await harness.sync(altered.manifestURL)
        #expect(second.status == .notModified)
        #expect(second.outcomes == ["installed"])
        #expect(await harness.installer.keys.map(\.name) == ["onboarding-flow"])
        let third = try await harness.sync(altered.manifestURL)
        #expect(third.entries.isEmpty, "retried at most once per call, and not after success")
    }
}

import Foundation
import StepwiseCrypto
import StepwiseExecution
import StepwiseJSON
@testable import StepwiseSync
import Testing

@Suite("ManifestPublisher (publish steps 1-7)")
struct ManifestPublisherTests {
    let now: Int64 = 1_767_225_600_000
    let day: Int64 = 86_400_000

    func options(now: Int64? = nil, _ change: (inout ManifestPublisher.Options) -> Void = { _ in }) -> ManifestPublisher.Options {
        var o = ManifestPublisher.Options(rootKey: TestKeys.root, rootKeyID: TestKeys.rootID, now: now ?? self.now)
        change(&o)
        return o
    }

    func input(_ name: String, version: Int = 1, handlers: [String] = ["h"]) -> ManifestPublisher.Input {
        .init(label: "\(name).json", bytes: sequenceDocument(name, version: version, handlers: handlers))
    }

    /// SYNC.md §3.11 step 3: "sorted unique" by UTF-8 bytes, as JSON strings compare: "é"
    /// (U+00E9) and "e" + U+0301 are two names, and "e…" sorts before "f" and "é".
    @Test func requiredHandlersAreSortedAndUniqueByBytes() {
        // Compared as bytes: Swift's `==` would take the two spellings for one.
        let sorted = ManifestPublisher.sortedUnique(["f", "\u{E9}clair", "e\u{301}clair", "f", "Z"]).map { Array($0.utf8) }
        #expect(sorted == ["Z", "e\u{301}clair", "f", "\u{E9}clair"].map { Array($0.utf8) })
    }

    @Test func publishesTheFixtureSequenceExactlyAsTheSharedGenerator() throws {
        let original = try Data(contentsOf: packageRoot().appendingPathComponent("Fixtures/sequences/onboarding-flow.json"))
        let output = try ManifestPublisher.publish(
            sequences: [.init(label: "onboarding-flow.json", bytes: [UInt8](original))], previousManifest: nil,
            options: options {
                $0.signingKey = TestKeys.sequence
                $0.signingKeyID = TestKeys.sequenceID
                $0.minSDKVersion = "0.1.0"
            })
        let valid = packageRoot().appendingPathComponent("Fixtures/signing/valid/sequences")
        let sha = "5d2d679c8ebae78707a44e312db091df7da50b347186c6e5896b4bdc35a5ce94"
        let expectedSequence = try Data(contentsOf: valid.appendingPathComponent("\(sha).json"))
        let expectedSignature = try Data(contentsOf: valid.appendingPathComponent("\(sha).sig"))
        #expect(output.artifacts.map(\.path) == ["sequences/\(sha).json", "sequences/\(sha).sig"])
        #expect(output.artifacts[0].bytes == [UInt8](expectedSequence))
        #expect(output.artifacts[1].bytes == [UInt8](expectedSignature))
        let entry = try #require(output.entries.first)
        #expect(Set(entry.requiredHandlers) == onboardingHandlers)
        #expect(entry.requiredHandlers == entry.requiredHandlers.sorted())
        #expect(entry.url == "sequences/\(sha).json")
        #expect(output.manifestVersion == now)
        // The fixture body minus its `removed` list is what we produce.
        let fixtureBody = try SignedManifestFile(
            bytes: [UInt8](try Data(contentsOf: packageRoot().appendingPathComponent("Fixtures/signing/valid/manifest.json")))
        ).body
        var fixture = try JSONParser.parse(fixtureBody).objectValue ?? [:]
        fixture["removed"] = []
        #expect(output.body == CanonicalJSON.bytes(of: .object(fixture)))
    }

    @Test func roundTripPublishThenSync() async throws {
        let output = try ManifestPublisher.publish(
            sequences: [input("a"), input("b", version: 3)], previousManifest: nil, options: options())
        let harness = SyncHarness()
        let base = "https://cdn.test/pub/"
        harness.fetcher.serve(base + "manifest.json", body: output.manifestFile)
        for artifact in output.artifacts { harness.fetcher.serve(base + artifact.path, body: artifact.bytes) }
        let result = try await harness.sync(URL(string: base + "manifest.json")!)
        #expect(result.outcomes == ["installed", "installed"])
        #expect(await harness.installer.keys.map(\.description) == ["a v1", "b v3"])
    }

    @Test func versionsIncreaseAndRemovalsCarryForward() throws {
        let first = try ManifestPublisher.publish(sequences: [input("a"), input("b")], previousManifest: nil, options: options())
        // Same clock: the version still increases.
        let second = try ManifestPublisher.publish(sequences: [input("a")], previousManifest: first.manifestFile, options: options())
        #expect(second.manifestVersion == first.manifestVersion + 1)
        #expect(second.removed.map(\.name) == ["b"])
        #expect(second.removed.first?.removedAtText == "2026-01-01T00:00:00Z")
        // Ten days later: b is still removed (kept with its original removed_at), c is newly removed.
        let third = try ManifestPublisher.publish(
            sequences: [input("b", version: 2)], previousManifest: second.manifestFile, options: options(now: now + 10 * day))
        #expect(third.manifestVersion == now + 10 * day)
        #expect(third.removed.map(\.name) == ["a"], "b is listed again, so no longer removed")
        let fourth = try ManifestPublisher.publish(
            sequences: [input("c")], previousManifest: third.manifestFile, options: options(now: now + 20 * day))
        #expect(fourth.removed.map(\.name) == ["a", "b"])
        // Removals older than 30 days are dropped.
        let fifth = try ManifestPublisher.publish(
            sequences: [input("c")], previousManifest: fourth.manifestFile, options: options(now: now + 41 * day))
        #expect(fifth.removed.map(\.name) == ["b"])
        let sixth = try ManifestPublisher.publish(
            sequences: [input("c")], previousManifest: fifth.manifestFile, options: options(now: now + 51 * day))
        #expect(sixth.removed.isEmpty)
    }

    @Test func signingKeysListTheSigningKeyThenTrustedKeysThenTheRootLast() throws {
        let output = try ManifestPublisher.publish(
            sequences: [input("a")], previousManifest: nil,
            options: options {
                $0.signingKey = TestKeys.sequence
                $0.signingKeyID = "seq-1"
                $0.trustedKeys = [("seq-2", TestKeys.newSequence.publicKey)]
                $0.baseURL = "https://cdn.example.com/app"
                $0.expiresInMilliseconds = 30 * day
            })
        let manifest = try Manifest(body: output.body)
        #expect(manifest.signingKeys.map(\.keyID) == ["seq-1", "seq-2", TestKeys.rootID])
        #expect(manifest.signingKeys.last?.publicKey == TestKeys.root.publicKey.base64)
        #expect(output.entries.first?.signingKeyID == "seq-1")
        #expect(output.entries.first?.url.hasPrefix("https://cdn.example.com/app/sequences/") == true)
        #expect(manifest.expiresAt == now + 30 * day)
        #expect(output.body.last != 0x0A)
        #expect(!output.body.contains(0x20), "no whitespace between tokens")
        #expect(try ManifestVerifier(rootKeys: TestKeys.roots).verify(output.manifestFile, now: now).trustedKeys.count == 3)
    }

    @Test func problemsAbortPublication() throws {
        func code(_ inputs: [ManifestPublisher.Input], previous: [UInt8]? = nil, _ change: (inout ManifestPublisher.Options) -> Void = { _ in }) -> String? {
            do {
                _ = try ManifestPublisher.publish(sequences: inputs, previousManifest: previous, options: options(change))
                return nil
            } catch { return error.code.rawValue }
        }
        #expect(code([input("a"), input("a", version: 2)]) == "invalidInput")
        #expect(code([.init(label: "bad.json", bytes: Array(#"{"name":"x","version":1,"blocks":[]}"#.utf8))]) == "sequenceInvalid")
        #expect(code([.init(label: "bad.json", bytes: Array("{".utf8))]) == "sequenceInvalid")
        #expect(code([input("a")]) { $0.trustedKeys = [(TestKeys.rootID, TestKeys.sequence.publicKey)] } == "invalidInput")
        #expect(code([input("a")]) { $0.signingKey = TestKeys.sequence } == "invalidInput")
        #expect(code([input("a")]) { $0.minSDKVersion = "1.x" } == "invalidInput")
        #expect(code([input("a")]) { $0.baseURL = "cdn.example.com/" } == "invalidInput")
        let foreign = try ManifestPublisher.publish(
            sequences: [input("a")], previousManifest: nil,
            options: ManifestPublisher.Options(rootKey: TestKeys.untrusted, rootKeyID: "x", now: now))
        #expect(code([input("a")], previous: foreign.manifestFile) == "invalidInput")
        #expect(code([input("a")], previous: Array("garbage".utf8)) == "invalidInput")
    }

    @Test func sequenceProblemsAreListedWithTheirFile() {
        let bad = ManifestPublisher.Input(label: "bad.json", bytes: Array(#"{"name":"x","version":1,"blocks":[{"type":"step","id":"a"}]}"#.utf8))
        let error = #expect(throws: SyncError.self) {
            try ManifestPublisher.publish(sequences: [input("ok"), bad], previousManifest: nil, options: options())
        }
        let problems = error?.context["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(problems == ["bad.json: /blocks/0/handler: missing_field: missing field 'handler'"])
    }
}

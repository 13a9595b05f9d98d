import Foundation
import StepwiseCrypto
import StepwiseExecution
import StepwiseJSON
import StepwiseSequences
@testable import StepwiseSync
import Testing

@Suite("Per-entry checks E1-E12")
struct ManifestEntryTests {
    let sha = String(repeating: "ab", count: 32)

    func entry(_ extra: JSONObject = [:], removing: [String] = []) -> JSONValue {
        var o: JSONObject = [
            "name": "flow", "version": 2, "url": "sequences/x.json", "signing_key_id": "k", "sha256": .string(sha),
        ]
        for (k, v) in extra { o[k] = v }
        for k in removing { o.removeValue(forKey: k) }
        return .object(o)
    }

    @Test func e1AcceptsAWellTypedEntryWithDefaults() throws {
        let e = try ManifestEntry(entry(["colour": "blue"]))
        #expect(e.name == "flow" && e.version == 2 && e.requiredHandlers.isEmpty && e.minSDKVersion == nil)
        let withNulls = try ManifestEntry(entry(["required_handlers": nil, "min_sdk_version": ""]))
        #expect(withNulls.requiredHandlers.isEmpty && withNulls.minSDKVersion == nil)
    }

    @Test(arguments: [
        ("name", JSONValue.string("  ")), ("name", 1), ("version", -1), ("version", 1.5), ("version", "2"),
        ("url", ""), ("url", 3), ("signing_key_id", nil), ("sha256", .string(String(repeating: "AB", count: 32))),
        ("sha256", "abc"), ("required_handlers", "h"), ("required_handlers", [1]), ("min_sdk_version", 1),
    ] as [(String, JSONValue)])
    func e1RejectsWrongTypes(_ member: String, _ value: JSONValue) {
        let raw = member == "signing_key_id" ? entry(removing: [member]) : entry([member: value])
        let failure = #expect(throws: EntryFailure.self) { try ManifestEntry(raw) }
        #expect(failure?.outcome == .invalidEntry)
        #expect(failure?.message.contains(member) == true)
    }

    @Test func e1IdentityIsBestEffort() {
        #expect(ManifestEntry.identity(of: ["name": "x", "version": 3]) == ("x", 3))
        #expect(ManifestEntry.identity(of: 7) == ("", nil))
    }

    @Test(arguments: [
        ("0.1.0", "0.1.0", true), ("0.1", "0.1.0", true), ("0.1.0.0", "0.1", true), ("1.10", "1.9", false),
        ("1.9", "1.10", true), ("2", "10", true), ("0010.1", "10.1", true), ("1.2.3", "1.2.2", false),
        ("1.2-beta", "9.9", false), ("1..2", "9", false), ("1.2", "1.2-rc1", false), ("99999999999999999999", "1", false),
    ])
    func e2SDKVersionComparison(_ minimum: String, _ current: String, _ ok: Bool) throws {
        #expect(SDKVersion.satisfies(minimum: minimum, current: current) == ok)
        let e = try ManifestEntry(entry(["min_sdk_version": .string(minimum)]))
        if ok {
            try ManifestEntryVerifier.checkSDKVersion(e, sdkVersion: current)
        } else {
            let failure = #expect(throws: EntryFailure.self) { try ManifestEntryVerifier.checkSDKVersion(e, sdkVersion: current) }
            #expect(failure?.outcome == .skippedSDKVersion)
        }
    }

    @Test func e3ListsTheMissingHandlers() throws {
        let e = try ManifestEntry(entry(["required_handlers": ["b", "a", "c"]]))
        try ManifestEntryVerifier.checkRequiredHandlers(e, registered: ["a", "b", "c", "d"])
        let failure = #expect(throws: EntryFailure.self) { try ManifestEntryVerifier.checkRequiredHandlers(e, registered: ["b"]) }
        #expect(failure?.outcome == .skippedMissingHandlers)
        #expect(failure?.message == "unregistered handlers: a, c")
    }

    @Test func e4StoredVersions() throws {
        let e = try ManifestEntry(entry())
        func stored(_ version: Int, sha: String, retired: Bool = false) -> StoredSequence {
            StoredSequence(key: SequenceKey(name: "flow", version: version), isDeprecated: false, origin: "manifest", sha256: sha, installedAt: 1, isRetired: retired)
        }
        func outcome(_ list: [StoredSequence]) -> EntryOutcome? {
            do {
                try ManifestEntryVerifier.checkStoredVersions(e, stored: list)
                return nil
            } catch { return error.outcome }
        }
        #expect(outcome([]) == nil)
        #expect(outcome([stored(1, sha: "x")]) == nil)
        #expect(outcome([stored(2, sha: sha)]) == .upToDate)
        #expect(outcome([stored(2, sha: "other")]) == .versionConflict)
        #expect(outcome([stored(3, sha: "x")]) == .superseded)
        #expect(outcome([stored(2, sha: sha, retired: true)]) == nil, "a re-listed retired version is installed again")
        #expect(outcome([stored(2, sha: "other", retired: true)]) == .versionConflict)
        #expect(outcome([stored(3, sha: "x", retired: true)]) == nil, "retired versions do not supersede")
        let other = StoredSequence(key: SequenceKey(name: "other", version: 9), isDeprecated: false, origin: "local", sha256: "", installedAt: 1)
        #expect(outcome([other]) == nil)
    }

    @Test func e5ResolvesURLsAndAppliesTheTransportRules() throws {
        let manifest = URL(string: "https://cdn.test/app/manifest.json?token=secret")!
        let policy = TransportPolicy()
        let relative = try ManifestEntryVerifier.artifactURLs(for: ManifestEntry(entry()), manifestURL: manifest, policy: policy)
        #expect(relative.sequence.absoluteString == "https://cdn.test/app/sequences/x.json")
        #expect(relative.signature.absoluteString == "https://cdn.test/app/sequences/x.sig")
        for bad in ["http://cdn.test/x.json", "https://127.0.0.1/x.json", "https://10.0.0.1/x.json", "ftp://cdn.test/x.json", "https:///x.json", "a b"] {
            let failure = #expect(throws: EntryFailure.self) {
                try ManifestEntryVerifier.artifactURLs(for: ManifestEntry(entry(["url": .string(bad)])), manifestURL: manifest, policy: policy)
            }
            #expect(failure?.outcome == .invalidEntry, "\(bad)")
            #expect(failure?.message.contains("secret") != true)
        }
    }

    @Test func e7HashMustMatch() throws {
        let bytes = Array("abc".utf8)
        let e = try ManifestEntry(entry(["sha256": .string(SHA256.hexDigest(of: bytes))]))
        try ManifestEntryVerifier.checkHash(bytes, entry: e)
        let failure = #expect(throws: EntryFailure.self) { try ManifestEntryVerifier.checkHash(bytes + [0], entry: e) }
        #expect(failure?.outcome == .hashMismatch)
    }

    @Test func e8KeyMustBeTrustedByThisManifest() throws {
        let e = try ManifestEntry(entry())
        let trusted = [VerifiedManifest.TrustedKey(keyID: "k", publicKey: TestKeys.sequence.publicKey)]
        #expect(try ManifestEntryVerifier.signingKey(for: e, in: trusted) == TestKeys.sequence.publicKey)
        let failure = #expect(throws: EntryFailure.self) { try ManifestEntryVerifier.signingKey(for: e, in: []) }
        #expect(failure?.outcome == .unknownSigningKey)
    }

    @Test func e10SignatureFileDecoding() throws {
        let signature = TestKeys.sequence.signature(for: [1])
        #expect(try ManifestEntryVerifier.decodeSignature(Array((Base64.encode(signature) + "\n").utf8)) == signature)
        #expect(try ManifestEntryVerifier.decodeSignature(Array((" " + Base64.encode(signature) + "\r\n\t").utf8)) == signature)
        for bad in ["", "!!!!", Base64.encode(Array(signature.dropLast())), Base64.encode(signature + [0]), Hex.encode(signature)] {
            let failure = #expect(throws: EntryFailure.self) { try ManifestEntryVerifier.decodeSignature(Array(bad.utf8)) }
            #expect(failure?.outcome == .signatureMalformed)
        }
    }

    @Test func e11SignatureMustVerifyWithTheEntryKey() throws {
        let bytes = Array("doc".utf8)
        try ManifestEntryVerifier.checkSignature(TestKeys.sequence.signature(for: bytes), of: bytes, by: TestKeys.sequence.publicKey)
        let failure = #expect(throws: EntryFailure.self) {
            try ManifestEntryVerifier.checkSignature(TestKeys.untrusted.signature(for: bytes), of: bytes, by: TestKeys.sequence.publicKey)
        }
        #expect(failure?.outcome == .signatureInvalid)
    }

    @Test func e12SequenceMustBeValidAndMatchTheEntry() throws {
        let e = try ManifestEntry(entry())
        let good = sequenceDocument("flow", version: 2, handlers: ["h"])
        #expect(try ManifestEntryVerifier.checkSequence(good, entry: e, maxBytes: 1 << 20, registeredHandlers: ["h"]).name == "flow")
        #expect(try ManifestEntryVerifier.checkSequence(good, entry: e, maxBytes: 1 << 20, registeredHandlers: nil).version == 2)
        func outcome(_ bytes: [UInt8], handlers: Set<String>? = ["h"], max: Int = 1 << 20) -> EntryOutcome? {
            do {
                _ = try ManifestEntryVerifier.checkSequence(bytes, entry: e, maxBytes: max, registeredHandlers: handlers)
                return nil
            } catch { return error.outcome }
        }
        #expect(outcome(sequenceDocument("flow", version: 3)) == .invalidSequence)
        #expect(outcome(sequenceDocument("other", version: 2)) == .invalidSequence)
        #expect(outcome(Array(#"{"name":"flow","version":2,"blocks":[]}"#.utf8)) == .invalidSequence)
        #expect(outcome(Array("not json".utf8)) == .invalidSequence)
        #expect(outcome(good, max: 10) == .invalidSequence)
        #expect(outcome(good, handlers: []) == .skippedMissingHandlers)
    }

    @Test func outcomeCategoriesAndRetries() {
        let table: [(EntryOutcome, EntryOutcome.Category, Bool)] = [
            (.invalidEntry, .skipped, false), (.skippedSDKVersion, .skipped, true), (.skippedMissingHandlers, .skipped, true),
            (.upToDate, .skipped, false), (.versionConflict, .skipped, false), (.superseded, .skipped, false),
            (.downloadFailed, .skipped, true), (.tooLarge, .skipped, false), (.hashMismatch, .signatureFailure, true),
            (.unknownSigningKey, .signatureFailure, false), (.signatureDownloadFailed, .signatureFailure, true),
            (.signatureMalformed, .signatureFailure, true), (.signatureInvalid, .signatureFailure, true),
            (.invalidSequence, .signatureFailure, false), (.storageLimit, .skipped, true), (.installed, .added, false),
            (.updated, .updated, false), (.verified, .none, false), (.pending, .none, true),
        ]
        for (outcome, category, retried) in table {
            #expect(outcome.category == category, "\(outcome)")
            #expect(outcome.isRetryable == retried, "\(outcome)")
        }
    }
}

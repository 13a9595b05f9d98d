import Foundation
import Stepwise
import StepwiseCrypto
import StepwiseTesting
import Testing

/// `Fixtures/hostile/manifest` (SYNC.md §3.6–3.7) and `Fixtures/hostile/signature` (E10).
///
/// A manifest sidecar's `stage` says what the input is: `file`, a whole manifest file verified
/// as downloaded (M3, M4 come first, so the body is never reached by a forger); or
/// `signed_body`, a body the test signs with the test root key of `Fixtures/signing` so that the
/// body and entry checks are reached. `expect` is `{"reason", "message"}` for a rejected
/// manifest, or `{"accepted": true, "warnings"?: [substring], "entry_count"?: N, "entries"?:
/// [{"index", "outcome", "message"?, "message_excludes"?}]}` where each listed entry runs E1
/// (`ManifestEntry`), E2 (SDK 1.0.0) and E5 (against `https://cdn.example.com/app/manifest.json`,
/// no insecure localhost) and `outcome` is the first failure or `ok`.
@Suite(.serialized)
struct ManifestHostileTests {
    /// 2026-05-19T10:30:00Z.
    static let now: Int64 = 1_779_186_600_000

    @Test(arguments: HostileCorpus.cases("manifest"))
    func verifiesOrRejectsCleanly(_ c: HostileCase) throws {
        try Self.check(c)
    }

    @Test(.enabled(if: HostileCorpus.runKnownBugs), arguments: HostileCorpus.cases("manifest", knownBugs: true))
    func knownBugReproducers(_ c: HostileCase) throws {
        try Self.check(c)
    }

    @Test(arguments: HostileCorpus.cases("signature"))
    func decodesSignatureFilesCleanly(_ c: HostileCase) throws {
        Expect.knownKeys(c, ["outcome", "message", "accepted"])
        let bytes = try c.input()
        guard
            let result = Expect.bounded(c, {
                Result { () throws(EntryFailure) in try ManifestEntryVerifier.decodeSignature(bytes) }
            })
        else { return }
        switch result {
        case .success(let signature):
            #expect(c.expect["accepted"]?.boolValue == true, "\(c.testDescription): accepted")
            #expect(signature.count == 64)
        case .failure(let failure):
            #expect(failure.outcome.rawValue == c.expect["outcome"]?.stringValue, "\(c.testDescription): \(failure)")
            Expect.message(failure.message, contains: c.expect["message"]?.stringValue, c)
        }
    }

    /// The test root key's private half (`Fixtures/signing/keys.json`, test-only).
    static func rootKey() throws -> Ed25519PrivateKey {
        let keys = try PackageFiles.readJSON("Fixtures/signing/keys.json")
        let root = keys["keys"]?.arrayValue?.first { $0["key_id"]?.stringValue == "stepwise-test-root-1" }
        let seed = try #require(root?["seed_hex"]?.stringValue.flatMap(Hex.decode))
        return try Ed25519PrivateKey(seed: seed)
    }

    static func check(_ c: HostileCase) throws {
        Expect.knownKeys(c, ["reason", "message", "accepted", "warnings", "entry_count", "entries"])
        let input = try c.input()
        let key = try rootKey()
        let file: [UInt8]
        switch c.sidecar["stage"]?.stringValue {
        case "file": file = input
        case "signed_body": file = SignedManifestFile.make(body: input, signedBy: key)
        default:
            Issue.record("\(c.testDescription): 'stage' must be 'file' or 'signed_body'")
            return
        }
        let verifier = ManifestVerifier(rootKeys: ManifestRootKeys([key.publicKey]))
        guard
            let result = Expect.bounded(c, {
                Result { () throws(SyncError) in try verifier.verify(file, now: now) }.map(Verified.init)
            })
        else { return }
        let e = c.expect
        switch result {
        case .failure(let error):
            guard let reason = e["reason"]?.stringValue else {
                Issue.record("\(c.testDescription): rejected: \(error)")
                return
            }
            #expect(error.reason?.rawValue == reason, "\(c.testDescription): \(error)")
            Expect.message(error.message, contains: e["message"]?.stringValue, c)
        case .success(let verified):
            #expect(e["accepted"]?.boolValue == true, "\(c.testDescription): accepted")
            for case .string(let warning) in e["warnings"]?.arrayValue ?? [] {
                #expect(verified.warnings.contains { $0.contains(warning) }, "\(c.testDescription): warnings \(verified.warnings)")
            }
            if let n = e["entry_count"]?.exactIntegerValue {
                #expect(verified.entries.count == Int(n), "\(c.testDescription): \(verified.entries.count) entries")
            }
            for case .object(let expected) in e["entries"]?.arrayValue ?? [] {
                let index = Int(expected["index"]?.exactIntegerValue ?? 0)
                guard index < verified.entries.count else {
                    Issue.record("\(c.testDescription): no entry \(index)")
                    continue
                }
                let (outcome, message) = Self.entryOutcome(verified.entries[index])
                #expect(outcome == expected["outcome"]?.stringValue, "\(c.testDescription): entry \(index): \(outcome) \(message)")
                if outcome != "ok" { Expect.message(message, contains: expected["message"]?.stringValue, c) }
                if let secret = expected["message_excludes"]?.stringValue {
                    #expect(!message.contains(secret), "\(c.testDescription): the message repeats '\(secret)': \(message)")
                }
            }
        }
    }

    /// What the tests read of a verified manifest.
    struct Verified: Sendable {
        let warnings: [String]
        let entries: [JSONValue]

        init(_ verified: VerifiedManifest) {
            warnings = verified.warnings
            entries = verified.manifest.sequences
        }
    }

    /// E1, E2 and E5 on one raw entry: the first failure, or `ok`.
    static func entryOutcome(_ raw: JSONValue) -> (String, String) {
        do throws(EntryFailure) {
            let entry = try ManifestEntry(raw)
            try ManifestEntryVerifier.checkSDKVersion(entry, sdkVersion: "1.0.0")
            _ = try ManifestEntryVerifier.artifactURLs(
                for: entry, manifestURL: URL(string: "https://cdn.example.com/app/manifest.json")!, policy: TransportPolicy())
            return ("ok", "")
        } catch {
            return (error.outcome.rawValue, error.message)
        }
    }
}

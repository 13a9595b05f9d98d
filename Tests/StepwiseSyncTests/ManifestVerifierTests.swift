import StepwiseCrypto
import StepwiseExecution
import StepwiseJSON
@testable import StepwiseSync
import Testing

@Suite("Manifest verification M1-M8")
struct ManifestVerifierTests {
    let verifier = ManifestVerifier(rootKeys: TestKeys.roots)
    let now: Int64 = 1_767_225_600_000

    func signed(_ body: String, by key: Ed25519PrivateKey = TestKeys.root) -> [UInt8] {
        SignedManifestFile.make(body: Array(body.utf8), signedBy: key)
    }

    func reason(_ file: [UInt8], verifier: ManifestVerifier? = nil) -> String? {
        do {
            _ = try (verifier ?? self.verifier).verify(file, now: now)
            return nil
        } catch {
            return error.reason?.rawValue ?? error.code.rawValue
        }
    }

    let minimal = #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[],"signing_keys":[]}"#

    @Test func minimalManifestVerifies() throws {
        let verified = try verifier.verify(signed(minimal), now: now)
        #expect(verified.manifest.manifestVersion == 5)
        #expect(verified.body == Array(minimal.utf8))
        #expect(verified.manifest.generatedAt == now)
    }

    @Test func m1NoRootKeyIsSyncNotConfigured() {
        let unconfigured = ManifestVerifier(rootKeys: try! ManifestRootKeys(rootPublicKey: ""))
        #expect(reason(signed(minimal), verifier: unconfigured) == "syncNotConfigured")
    }

    @Test func m2SizeCapIsTooLarge() {
        let small = ManifestVerifier(rootKeys: TestKeys.roots, maxManifestBytes: 100)
        #expect(reason(signed(minimal), verifier: small) == "too_large")
    }

    @Test func m3SplitsAtTheFirstLFAndTrimsOnlyTheSignatureLine() throws {
        let body = Array(minimal.utf8)
        let signature = Base64.encode(TestKeys.root.signature(for: body))
        let withCR = Array("  \(signature) \r\n".utf8) + body
        #expect(try verifier.verify(withCR, now: now).body == body)
        // A newline appended to the body breaks the signature: the body is never trimmed.
        #expect(reason(Array("\(signature)\n".utf8) + body + [0x0A]) == "manifest_signature_invalid")
        // A body containing LFs is fine: only the first LF splits.
        let pretty = Array("{\n\"generated_at\":\"2026-01-01T00:00:00Z\",\"manifest_version\":1,\"removed\":[],\"sequences\":[],\"signing_keys\":[]\n}".utf8)
        #expect(try verifier.verify(SignedManifestFile.make(body: pretty, signedBy: TestKeys.root), now: now).body == pretty)
    }

    @Test(arguments: [
        "", "no newline at all", "not base64!\n{}", "AAAA\n{}",
        String(repeating: "A", count: 88) + "\n{}",  // 66 bytes
        Base64.encode([UInt8](repeating: 1, count: 63)) + "\n{}",
    ])
    func m3MalformedSignatureLines(_ text: String) {
        #expect(reason(Array(text.utf8)) == "manifest_malformed")
    }

    @Test func m4OnlyAConfiguredRootVerifies() {
        #expect(reason(signed(minimal, by: TestKeys.untrusted)) == "manifest_signature_invalid")
        #expect(reason(signed(minimal, by: TestKeys.sequence)) == "manifest_signature_invalid")
        var altered = signed(minimal)
        altered[altered.count - 3] ^= 1
        #expect(reason(altered) == "manifest_signature_invalid")
    }

    @Test func m4AnyConfiguredRootVerifiesForRotation() throws {
        let both = ManifestVerifier(rootKeys: ManifestRootKeys([TestKeys.root.publicKey, TestKeys.newRoot.publicKey]))
        #expect(reason(signed(minimal, by: TestKeys.newRoot), verifier: both) == nil)
        #expect(reason(signed(minimal, by: TestKeys.root), verifier: both) == nil)
        #expect(reason(signed(minimal, by: TestKeys.newRoot)) == "manifest_signature_invalid")
    }

    @Test(arguments: [
        "[]", "not json", #"{"a":1,"a":2}"#,
        #"{"manifest_version":5,"removed":[],"sequences":[],"signing_keys":[]}"#,
        #"{"generated_at":"yesterday","manifest_version":5,"removed":[],"sequences":[],"signing_keys":[]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":"5","removed":[],"sequences":[],"signing_keys":[]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5.0,"removed":[],"sequences":[],"signing_keys":[]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":{},"signing_keys":[]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"sequences":[],"signing_keys":[]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[{"name":"x"}],"sequences":[],"signing_keys":[]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[{"name":"x","removed_at":"2026-13-01T00:00:00Z"}],"sequences":[],"signing_keys":[]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[],"signing_keys":[{"key_id":"","public_key":"x"}]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[],"signing_keys":[{"key_id":"a","public_key":1}]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[],"signing_keys":[{"key_id":"a","public_key":"x"},{"key_id":"a","public_key":"y"}]}"#,
        #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[],"signing_keys":[],"expires_at":7}"#,
    ])
    func m5BodyTypesAreChecked(_ body: String) {
        #expect(reason(signed(body)) == "manifest_malformed")
    }

    @Test func m5NestingDeeperThan64IsMalformed() {
        let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        let body = #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[],"signing_keys":[],"x":\#(deep)}"#
        #expect(reason(signed(body)) == "manifest_malformed")
        let ok = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        let fine = #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[],"signing_keys":[],"x":\#(ok)}"#
        #expect(reason(signed(fine)) == nil)
    }

    @Test func m5UnknownMembersAndOddEntriesAreNotManifestErrors() throws {
        let body = #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[1,"x",{}],"signing_keys":[{"key_id":"a","public_key":"short"}],"colour":"blue"}"#
        let verified = try verifier.verify(signed(body), now: now)
        #expect(verified.manifest.sequences.count == 3)
        #expect(verified.trustedKeys.isEmpty)
    }

    @Test func m6ExpiryIsChecked() throws {
        func body(_ expires: String) -> String {
            #"{"expires_at":"\#(expires)","generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[],"signing_keys":[]}"#
        }
        #expect(reason(signed(body("2025-12-31T23:59:59Z"))) == "manifest_expired")
        #expect(reason(signed(body("2026-01-01T00:00:00Z"))) == "manifest_expired", "must be after now")
        #expect(reason(signed(body("2026-01-01T00:00:00.001Z"))) == nil)
        #expect(reason(signed(body("2026-01-01T01:00:01+01:00"))) == nil)
        #expect(try verifier.verify(signed(body("2026-02-01T00:00:00Z")), now: now).manifest.expiresAt != nil)
    }

    @Test func m7ReplayDecisions() throws {
        let verified = try verifier.verify(signed(minimal), now: now)
        #expect(ManifestVerifier.replayDecision(for: verified, lastAppliedVersion: nil, lastAppliedBody: nil) == .accept)
        #expect(ManifestVerifier.replayDecision(for: verified, lastAppliedVersion: 4, lastAppliedBody: []) == .accept)
        #expect(
            ManifestVerifier.replayDecision(for: verified, lastAppliedVersion: 5, lastAppliedBody: Array(minimal.utf8))
                == .notModified)
        #expect(ManifestVerifier.replayDecision(for: verified, lastAppliedVersion: 5, lastAppliedBody: [1]) == .stale)
        #expect(ManifestVerifier.replayDecision(for: verified, lastAppliedVersion: 6, lastAppliedBody: Array(minimal.utf8)) == .stale)
    }

    @Test func m8UndecodableKeysAreDroppedWithAWarning() throws {
        let body = #"{"generated_at":"2026-01-01T00:00:00Z","manifest_version":5,"removed":[],"sequences":[],"signing_keys":[{"key_id":"good","public_key":"\#(TestKeys.sequence.publicKey.base64)"},{"key_id":"hex","public_key":"\#(Hex.encode(TestKeys.sequence.publicKey.rawRepresentation))"},{"key_id":"short","public_key":"AAAA"}]}"#
        let verified = try verifier.verify(signed(body), now: now)
        #expect(verified.trustedKeys.map(\.keyID) == ["good"])
        #expect(verified.signingKey(id: "good") == TestKeys.sequence.publicKey)
        #expect(verified.signingKey(id: "hex") == nil)
        #expect(verified.warnings.count == 2)
        #expect(verified.warnings.allSatisfy { !$0.contains(TestKeys.sequence.publicKey.base64) })
    }

    @Test func rootKeysParseEveryConfiguredFormatAndRejectMalformedOnes() throws {
        let b64 = TestKeys.root.publicKey.base64
        let hex = Hex.encode(TestKeys.root.publicKey.rawRepresentation)
        let spki = Base64.encode(TestKeys.root.publicKey.spkiDER)
        for text in [b64, hex, spki, " \(b64)\n"] {
            #expect(try ManifestRootKeys(rootPublicKey: text).keys == [TestKeys.root.publicKey])
        }
        #expect(try ManifestRootKeys(rootPublicKey: "").isConfigured == false)
        let rotated = try ManifestRootKeys(rootPublicKey: b64, additionalRootPublicKeys: ["", TestKeys.newRoot.publicKey.base64])
        #expect(rotated.keys == [TestKeys.root.publicKey, TestKeys.newRoot.publicKey])
        let bad = #expect(throws: SyncError.self) { try ManifestRootKeys(rootPublicKey: "nope") }
        #expect(bad?.code == .invalidInput)
        let badExtra = #expect(throws: SyncError.self) { try ManifestRootKeys(rootPublicKey: b64, additionalRootPublicKeys: ["AAAA"]) }
        #expect(badExtra?.message.contains("additionalRootPublicKeys[0]") == true)
    }

    @Test func syncErrorMapsToTheEngineError() {
        let error = SyncError.manifestRejected(.manifestExpired, "expired")
        #expect(error.stepwiseError.code == .manifestRejected)
        #expect(error.stepwiseError.context["reason"] == "manifest_expired")
        #expect(error.description == "manifestRejected(manifest_expired): expired")
    }
}

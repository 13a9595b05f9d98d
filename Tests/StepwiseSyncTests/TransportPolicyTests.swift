import Foundation
import StepwiseExecution
@testable import StepwiseSync
import Testing

@Suite("Transport rules and artifact URLs")
struct TransportPolicyTests {
    @Test(arguments: [
        ("https://cdn.example.com/m.json", false, true), ("https://cdn.example.com:8443/m.json", false, true),
        ("https://8.8.8.8/m.json", false, true), ("https://[2001:db8::1]/m.json", false, true),
        ("http://cdn.example.com/m.json", false, false), ("http://cdn.example.com/m.json", true, false),
        ("http://localhost/m.json", false, false), ("http://localhost:8080/m.json", true, true),
        ("https://localhost/m.json", true, true), ("http://127.0.0.1:9/m.json", true, true),
        ("https://127.0.0.1/m.json", false, false), ("http://127.0.0.2/m.json", true, false),
        ("https://10.1.2.3/m.json", true, false), ("https://172.16.0.1/m.json", false, false),
        ("https://172.32.0.1/m.json", false, true), ("https://192.168.0.1/m.json", false, false),
        ("https://169.254.169.254/m.json", false, false), ("https://100.64.0.1/m.json", false, false),
        ("https://0.0.0.0/m.json", false, false), ("https://[::1]/m.json", true, false),
        ("https://[fd00::1]/m.json", false, false), ("https://[fe80::1]/m.json", false, false),
        ("https://[::ffff:10.0.0.1]/m.json", false, false), ("https://2130706433/m.json", false, false),
        ("https://0x7f.0.0.1/m.json", false, false), ("https://127.1/m.json", false, false),
        ("https://010.0.0.1/m.json", false, false), ("https://app.localhost/m.json", false, false),
        ("ftp://cdn.example.com/m.json", false, false), ("file:///etc/passwd", false, false),
        ("https://deadbeef.example.com/m.json", false, true), ("https://1password.com/m.json", false, true),
    ])
    func policy(_ url: String, _ allowInsecureLocalhost: Bool, _ allowed: Bool) throws {
        let policy = TransportPolicy(allowInsecureLocalhost: allowInsecureLocalhost)
        let refusal = policy.refusal(for: try #require(URL(string: url)))
        #expect((refusal == nil) == allowed, "\(url): \(refusal ?? "allowed")")
    }

    @Test func fileURLsOnlyWhenAllowed() {
        var policy = TransportPolicy()
        #expect(policy.refusal(for: URL(fileURLWithPath: "/tmp/m.json")) != nil)
        policy.allowsFileURLs = true
        #expect(policy.refusal(for: URL(fileURLWithPath: "/tmp/m.json")) == nil)
    }

    @Test func messagesNeverShowQueriesOrCredentials() throws {
        let url = try #require(URL(string: "http://user:pw@cdn.example.com/app/m.json?token=secret#frag"))
        let refusal = try #require(TransportPolicy().refusal(for: url))
        #expect(!refusal.contains("secret") && !refusal.contains("pw") && !refusal.contains("frag"))
        #expect(TransportPolicy.redacted(url) == "http://cdn.example.com/app/m.json")
    }

    @Test func originsCompareSchemeHostAndEffectivePort() throws {
        func origin(_ s: String) -> String? { TransportPolicy.origin(of: URL(string: s)!) }
        #expect(origin("https://CDN.test/a") == origin("https://cdn.test:443/b"))
        #expect(origin("https://cdn.test/a") != origin("http://cdn.test/a"))
        #expect(origin("https://cdn.test/a") != origin("https://cdn.test:8443/a"))
        #expect(origin("https://cdn.test/a") != origin("https://api.cdn.test/a"))
    }

    @Test(arguments: [
        ("https://h.test/a/b/manifest.json", "sequences/x.json", "https://h.test/a/b/sequences/x.json", "https://h.test/a/b/sequences/x.sig"),
        ("https://h.test/a/b/manifest.json", "../x.json", "https://h.test/a/x.json", "https://h.test/a/x.sig"),
        ("https://h.test/a/b/manifest.json", "/t/sequences/x.json", "https://h.test/t/sequences/x.json", "https://h.test/t/sequences/x.sig"),
        ("https://h.test/a/manifest.json?token=1", "x.json", "https://h.test/a/x.json", "https://h.test/a/x.sig"),
        ("https://h.test/a/manifest.json", "x.json?v=2#top", "https://h.test/a/x.json?v=2", "https://h.test/a/x.sig?v=2"),
        ("https://h.test/a/manifest.json", "x.json.json", "https://h.test/a/x.json.json", "https://h.test/a/x.json.sig"),
        ("https://h.test/a/manifest.json", "x.json/y", "https://h.test/a/x.json/y", "https://h.test/a/x.json/y.sig"),
        ("https://h.test/a/manifest.json", "//other.test/p/x.json", "https://other.test/p/x.json", "https://other.test/p/x.sig"),
        ("https://h.test/a/manifest.json", "https://cdn.test/x.JSON", "https://cdn.test/x.JSON", "https://cdn.test/x.JSON.sig"),
    ])
    func artifactURLs(_ manifest: String, _ reference: String, _ sequence: String, _ signature: String) throws {
        let urls = try ArtifactURLs(entryURL: reference, manifestURL: URL(string: manifest)!)
        #expect(urls.sequence.absoluteString == sequence)
        #expect(urls.signature.absoluteString == signature)
    }

    @Test(arguments: ["", "http://", "a b c", "https:no-host"])
    func unusableReferencesAreInvalidEntries(_ reference: String) {
        let failure = #expect(throws: EntryFailure.self) {
            try ArtifactURLs(entryURL: reference, manifestURL: URL(string: "https://h.test/m.json")!)
        }
        #expect(failure?.outcome == .invalidEntry)
    }
}

@Suite("Canonical JSON, RFC 3339, sync state")
struct FormatTests {
    @Test func canonicalJSONSortsKeysByUTF8BytesAndKeepsNumberTokens() throws {
        let input = #"{ "b": [3000.0, 1.5, 1e3, -0, 10], "a": {"z": null, "é": true, "Z": false, "aa": "x/y\u2028"}, "\u00e9": "\u0001\n\"\\" }"#
        let output = try CanonicalJSON.canonicalize(Array(input.utf8))
        let expected = "{\"a\":{\"Z\":false,\"aa\":\"x/y\u{2028}\",\"z\":null,\"é\":true},\"b\":[3000.0,1.5,1e3,-0,10],\"é\":\"\\u0001\\n\\\"\\\\\"}"
        #expect(String(decoding: output, as: UTF8.self) == expected)
    }

    @Test func canonicalJSONRejectsDuplicateKeysAndBadInput() {
        for bad in [#"{"a":1,"a":2}"#, "\u{FEFF}{}", "{", "[1,]"] {
            let error = #expect(throws: SyncError.self) { try CanonicalJSON.canonicalize(Array(bad.utf8)) }
            #expect(error?.code == .invalidInput)
        }
    }

    @Test func canonicalFormOfTheOrch8OnboardingFlowMatchesThePublishedFixture() throws {
        let source = packageRoot().appendingPathComponent("Fixtures/sequences/onboarding-flow.json")
        guard let original = FileManager.default.contents(atPath: source.path) else { return }
        let canonical = try CanonicalJSON.canonicalize([UInt8](original))
        #expect(SHA256Hex.of(canonical) == "5d2d679c8ebae78707a44e312db091df7da50b347186c6e5896b4bdc35a5ce94")
        #expect(try CanonicalJSON.canonicalize(canonical) == canonical, "idempotent")
    }

    @Test(arguments: [
        ("2026-01-01T00:00:00Z", Int64(1_767_225_600_000)), ("2026-01-01t00:00:00z", 1_767_225_600_000),
        ("2026-01-01T01:00:00+01:00", 1_767_225_600_000), ("2025-12-31T19:00:00.250-05:00", 1_767_225_600_250),
        ("1970-01-01T00:00:00.123456Z", 123), ("2024-02-29T12:00:00Z", 1_709_208_000_000),
        ("1969-12-31T23:59:59Z", -1000),
    ])
    func rfc3339Parses(_ text: String, _ ms: Int64) {
        #expect(RFC3339.milliseconds(from: text) == ms)
    }

    @Test(arguments: [
        "2026-01-01", "2026-01-01 00:00:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-01-01T24:00:00Z",
        "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+0100", "26-01-01T00:00:00Z", "2026-01-01T00:00:00Zx",
    ])
    func rfc3339Rejects(_ text: String) {
        #expect(RFC3339.milliseconds(from: text) == nil)
    }

    @Test func rfc3339Formats() {
        #expect(RFC3339.string(fromMilliseconds: 1_767_225_600_999) == "2026-01-01T00:00:00Z")
        #expect(RFC3339.string(fromMilliseconds: 0) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.string(fromMilliseconds: -1) == "1969-12-31T23:59:59Z")
        for ms: Int64 in [951_782_400_000, 4_102_444_800_000, 1_709_208_000_000] {
            #expect(RFC3339.milliseconds(from: RFC3339.string(fromMilliseconds: ms)) == ms)
        }
    }

    @Test func syncStateRoundTripsThroughItsEncoding() throws {
        var state = ManifestSyncState()
        state.lastAppliedVersion = 42
        state.manifestURL = "https://cdn.test/m.json?token=x"
        state.etag = "W/\"1\""
        state.manifestSignature = "sig"
        state.manifestBody = Array("{\"a\":\"é\\n\u{2028}\"}".utf8)
        state.trustedKeys = [.init(keyID: "k", publicKey: TestKeys.sequence.publicKey)]
        state.entries = [
            .init(index: 0, name: "a", version: 1, outcome: .hashMismatch, message: "m"),
            .init(index: 1, name: "", version: nil, outcome: .invalidEntry),
        ]
        let decoded = try ManifestSyncState(encoded: state.encoded())
        #expect(decoded == state)
        #expect(decoded.pendingEntries.map(\.index) == [0])
        #expect(try ManifestSyncState(encoded: ManifestSyncState().encoded()) == ManifestSyncState())
        let corrupt = #expect(throws: SyncError.self) { try ManifestSyncState(encoded: Array("[]".utf8)) }
        #expect(corrupt?.code == .storage)
    }
}

import StepwiseCrypto

/// SHA-256 hex for tests.
enum SHA256Hex {
    static func of(_ bytes: [UInt8]) -> String { SHA256.hexDigest(of: bytes) }
}

import ArgumentParser
import Foundation
import Stepwise
@testable import StepwiseCommands
import StepwiseCrypto
import StepwiseSync
import Testing

/// Paths and helpers for the manifest command tests.
private enum ManifestCLI {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let fixtureRootKey = "Nz5XgYPm9wWMq6BzPJWhG3hbAqqz7xG2+HwWLMbcr0k="
    static let now: Int64 = 1_767_225_600_000

    static func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }

    static func sequence(_ name: String, version: Int = 1, in dir: String) throws -> String {
        let path = dir + "/\(name).json"
        let text = #"{"name": "\#(name)", "version": \#(version), "blocks": [{"type": "step", "id": "a", "handler": "h_\#(name)", "params": {"ratio": 1.50}}]}"#
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A fresh key pair written by `keygen`.
    static func keys(_ name: String = "root", in dir: String) -> (key: String, pub: String) {
        let output = KeygenCommand.execute(name: name, out: dir, force: false)
        precondition(output.exitCode == 0, output.standardError)
        return (dir + "/\(name).key", dir + "/\(name).pub")
    }

    static func json(_ output: CommandOutput) throws -> JSONValue { try JSONParser.parse(output.standardOutput) }
}

@Suite("stepwise keygen")
struct ManifestKeygenTests {
    @Test func writesAPrivateSeedWithMode0600AndAPublicKey() throws {
        let dir = try ManifestCLI.temporaryDirectory() + "/nested"
        let key = try Ed25519PrivateKey(seed: [UInt8](repeating: 7, count: 32))
        let output = KeygenCommand.execute(name: "release", out: dir, force: false, key: key)
        #expect(output.exitCode == 0)
        let seedText = try String(contentsOfFile: dir + "/release.key", encoding: .utf8)
        let pubText = try String(contentsOfFile: dir + "/release.pub", encoding: .utf8)
        #expect(seedText == Base64.encode(key.seedRepresentation) + "\n")
        #expect(pubText == key.publicKey.base64 + "\n")
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/release.key")[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(output.standardOutput.contains(key.publicKey.base64))
        #expect(!output.standardOutput.contains(Base64.encode(key.seedRepresentation)), "never prints the seed")
        #expect(!output.standardError.contains(Base64.encode(key.seedRepresentation)))
    }

    @Test func refusesToOverwriteUnlessForced() throws {
        let dir = try ManifestCLI.temporaryDirectory()
        _ = ManifestCLI.keys(in: dir)
        let first = try String(contentsOfFile: dir + "/root.key", encoding: .utf8)
        let again = KeygenCommand.execute(name: "root", out: dir, force: false)
        #expect(again.exitCode == 2)
        #expect(again.standardError.contains("exists"))
        #expect(try String(contentsOfFile: dir + "/root.key", encoding: .utf8) == first)
        #expect(KeygenCommand.execute(name: "root", out: dir, force: true).exitCode == 0)
        #expect(try String(contentsOfFile: dir + "/root.key", encoding: .utf8) != first)
        #expect(KeygenCommand.execute(name: "../x", out: dir, force: false).exitCode == 2)
    }

    @Test func parsesFromTheCommandLine() throws {
        let command = try StepwiseCLI.parseAsRoot(["keygen", "ci", "--out", "/tmp/x", "--force"]) as? KeygenCommand
        #expect(command?.name == "ci")
        #expect(command?.out == "/tmp/x")
        #expect(command?.force == true)
    }
}

@Suite("stepwise publish and verify-manifest")
struct ManifestPublishVerifyTests {
    @Test func publishThenVerifyRoundTrips() async throws {
        let dir = try ManifestCLI.temporaryDirectory()
        let keys = ManifestCLI.keys(in: dir)
        let a = try ManifestCLI.sequence("alpha", in: dir)
        let b = try ManifestCLI.sequence("beta", version: 4, in: dir)
        let out = dir + "/public"
        let published = PublishCommand.execute(key: keys.key, keyID: "root-1", out: out, paths: [a, b], now: ManifestCLI.now)
        #expect(published.exitCode == 0, "\(published.standardError)")
        #expect(published.standardOutput.contains("published 2 sequences"))
        #expect(published.standardOutput.contains("(manifest_version \(ManifestCLI.now))"))
        let manifest = try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))
        #expect(manifest.last != 0x0A)
        let files = try FileManager.default.contentsOfDirectory(atPath: out + "/sequences").sorted()
        #expect(files.count == 4)
        #expect(files.allSatisfy { $0.hasSuffix(".json") || $0.hasSuffix(".sig") })
        // The float token is kept as written.
        let sequenceFile = try #require(files.first { $0.hasSuffix(".json") })
        let canonical = try String(contentsOfFile: out + "/sequences/" + sequenceFile, encoding: .utf8)
        #expect(canonical.contains(#""ratio":1.50"#))
        #expect(!canonical.contains(" "))

        let text = await VerifyManifestCommand.execute(
            location: out, rootKey: keys.pub, json: false, now: ManifestCLI.now)
        #expect(text.exitCode == 0, "\(text.standardOutput)\(text.standardError)")
        #expect(text.standardOutput == """
            manifest: verified (manifest_version \(ManifestCLI.now))
              alpha v1: verified
              beta v4: verified

            """)
        let report = try ManifestCLI.json(
            await VerifyManifestCommand.execute(location: out, rootKey: keys.pub, json: true, now: ManifestCLI.now))
        #expect(report["status"] == "verified")
        #expect(report["error"] == .null)
        #expect(report["manifest_version"] == .integer(ManifestCLI.now))
        #expect(report["entries"] == [
            ["name": "alpha", "version": 1, "outcome": "verified"], ["name": "beta", "version": 4, "outcome": "verified"],
        ])
        #expect(report["warnings"] == [])
    }

    @Test func republishingIncreasesTheVersionAndRecordsRemovals() async throws {
        let dir = try ManifestCLI.temporaryDirectory()
        let keys = ManifestCLI.keys(in: dir)
        let a = try ManifestCLI.sequence("alpha", in: dir)
        let b = try ManifestCLI.sequence("beta", in: dir)
        let out = dir + "/public"
        #expect(PublishCommand.execute(key: keys.key, out: out, paths: [a, b], now: ManifestCLI.now).exitCode == 0)
        let second = PublishCommand.execute(key: keys.key, out: out, paths: [a], now: ManifestCLI.now - 5)
        #expect(second.exitCode == 0)
        #expect(second.standardOutput.contains("(manifest_version \(ManifestCLI.now + 1))"))
        #expect(second.standardOutput.contains("removed beta"))
        let body = try SignedManifestFile(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")))).body
        let manifest = try Manifest(body: body)
        #expect(manifest.removed.map(\.name) == ["beta"])
        #expect(manifest.signingKeys.map(\.keyID) == ["root"])
        // Another root key cannot take the directory over.
        let other = ManifestCLI.keys("other", in: dir)
        let hijack = PublishCommand.execute(key: other.key, out: out, paths: [a], now: ManifestCLI.now)
        #expect(hijack.exitCode == 2)
        #expect(hijack.standardError.contains("cannot be carried forward"))
    }

    /// SYNC.md §1 transport rules: a base URL every device would refuse (E5) is an error; plain
    /// http to localhost publishes with a warning (devices with allowInsecureLocalhost).
    @Test func aBaseURLDevicesWouldRefuseIsNotPublished() throws {
        let dir = try ManifestCLI.temporaryDirectory()
        let root = ManifestCLI.keys("root", in: dir)
        let a = try ManifestCLI.sequence("alpha", in: dir)
        for base in ["http://cdn.example.com/app/", "https://192.168.1.20/app/", "ftp://cdn.example.com/"] {
            let refused = PublishCommand.execute(key: root.key, baseURL: base, out: dir + "/refused", paths: [a], now: ManifestCLI.now)
            #expect(refused.exitCode == 2, "\(base)")
            #expect(refused.standardError.contains("--base-url"), "\(refused.standardError)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/refused/manifest.json"))
        }
        // An expiry past 9999 cannot be written in RFC 3339: refused, not a manifest devices reject.
        let far = PublishCommand.execute(key: root.key, expiresIn: "3000000d", out: dir + "/far", paths: [a], now: ManifestCLI.now)
        #expect(far.exitCode == 2 && far.standardError.contains("before the year 10000"), "\(far.standardError)")
        let overflow = PublishCommand.execute(key: root.key, expiresIn: "106751991167d", out: dir + "/far", paths: [a], now: ManifestCLI.now)
        #expect(overflow.exitCode == 2)
        let local = PublishCommand.execute(
            key: root.key, baseURL: "http://127.0.0.1:8080/app/", out: dir + "/local", paths: [a], now: ManifestCLI.now)
        #expect(local.exitCode == 0, "\(local.standardError)")
        #expect(local.standardError.contains("warning: --base-url is plain http"))
    }

    @Test func separateSigningKeyAndTrustedKeysAreListed() async throws {
        let dir = try ManifestCLI.temporaryDirectory()
        let root = ManifestCLI.keys("root", in: dir)
        let seq = ManifestCLI.keys("seq", in: dir)
        let next = ManifestCLI.keys("next", in: dir)
        let a = try ManifestCLI.sequence("alpha", in: dir)
        let out = dir + "/public"
        let published = PublishCommand.execute(
            key: root.key, keyID: "root-1", signingKey: seq.key, signingKeyID: "seq-1", trustKeys: [next.pub],
            trustKeyIDs: ["seq-2"], baseURL: "https://cdn.example.com/app/", minSDK: "0.1.0", expiresIn: "30d", out: out,
            paths: [a], now: ManifestCLI.now)
        #expect(published.exitCode == 0, "\(published.standardError)")
        #expect(published.standardOutput.contains("signed by seq-1"))
        let body = try SignedManifestFile(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")))).body
        let manifest = try Manifest(body: body)
        #expect(manifest.signingKeys.map(\.keyID) == ["seq-1", "seq-2", "root-1"])
        #expect(manifest.expiresAt == ManifestCLI.now + 30 * 86_400_000)
        let entry = try ManifestEntry(manifest.sequences[0])
        #expect(entry.url.hasPrefix("https://cdn.example.com/app/sequences/"))
        #expect(entry.minSDKVersion == "0.1.0")
        #expect(entry.requiredHandlers == ["h_alpha"])
        // Absolute URLs are fetched over the network: serve them from memory for the check.
        let fetcher = InMemoryManifestFetcher()
        try fetcher.serveDirectory(URL(fileURLWithPath: out, isDirectory: true), at: "https://cdn.example.com/app/")
        let report = await VerifyManifestCommand.execute(
            location: "https://cdn.example.com/app/manifest.json", rootKey: root.pub, json: false, now: ManifestCLI.now,
            fetcher: fetcher)
        #expect(report.exitCode == 0, "\(report.standardOutput)\(report.standardError)")
        let expired = await VerifyManifestCommand.execute(
            location: "https://cdn.example.com/app/manifest.json", rootKey: root.pub, json: true,
            now: ManifestCLI.now + 31 * 86_400_000, fetcher: fetcher)
        #expect(expired.exitCode == 1)
        #expect(try ManifestCLI.json(expired)["error"] == "manifest_expired")
    }

    @Test func aManifestThatCannotBeFetchedIsRejectedWithItsCode() async throws {
        let fetcher = InMemoryManifestFetcher()
        fetcher.serve("https://cdn.example.com/app/manifest.json", body: [], statusCode: 401)
        let root = ManifestCLI.keys(in: try ManifestCLI.temporaryDirectory())
        let denied = await VerifyManifestCommand.execute(
            location: "https://cdn.example.com/app/manifest.json", rootKey: root.pub, json: true, now: ManifestCLI.now,
            fetcher: fetcher)
        #expect(denied.exitCode == 1, "\(denied.standardError)")
        let report = try ManifestCLI.json(denied)
        #expect(report["status"] == "rejected" && report["error"] == "unauthorized")
    }

    @Test func invalidSequencesPublishNothingAndExitOne() throws {
        let dir = try ManifestCLI.temporaryDirectory()
        let keys = ManifestCLI.keys(in: dir)
        let bad = dir + "/bad.json"
        try Data(#"{"name": "x", "version": 1, "blocks": [{"type": "step", "id": "a"}]}"#.utf8).write(to: URL(fileURLWithPath: bad))
        let out = dir + "/public"
        let output = PublishCommand.execute(key: keys.key, out: out, paths: [bad], now: ManifestCLI.now)
        #expect(output.exitCode == 1)
        #expect(output.standardOutput.contains("bad.json: /blocks/0/handler: missing_field"))
        #expect(!FileManager.default.fileExists(atPath: out + "/manifest.json"))
    }

    @Test func unusableInputExitsTwo() throws {
        let dir = try ManifestCLI.temporaryDirectory()
        let keys = ManifestCLI.keys(in: dir)
        let a = try ManifestCLI.sequence("alpha", in: dir)
        let notAKey = dir + "/alpha.json"
        #expect(PublishCommand.execute(key: notAKey, out: dir + "/o", paths: [a], now: ManifestCLI.now).exitCode == 2)
        #expect(PublishCommand.execute(key: dir + "/missing.key", out: dir + "/o", paths: [a], now: ManifestCLI.now).exitCode == 2)
        let swapped = PublishCommand.execute(key: keys.pub, out: dir + "/o", paths: [a], now: ManifestCLI.now)
        #expect(swapped.exitCode == 2)
        #expect(swapped.standardError.contains("looks like a public key"))
        #expect(PublishCommand.execute(key: keys.key, out: dir + "/o", paths: [dir + "/none.json"], now: ManifestCLI.now).exitCode == 2)
        #expect(PublishCommand.execute(key: keys.key, expiresIn: "soon", out: dir + "/o", paths: [a], now: ManifestCLI.now).exitCode == 2)
        #expect(PublishCommand.execute(key: keys.key, trustKeys: [keys.pub], out: dir + "/o", paths: [a], now: ManifestCLI.now).exitCode == 2)
        let leaked = PublishCommand.execute(key: notAKey, out: dir + "/o", paths: [a], now: ManifestCLI.now)
        #expect(!leaked.standardError.contains("blocks"), "never echoes key file content")
    }

    @Test func worldReadableKeyFilesAreWarnedAbout() throws {
        let dir = try ManifestCLI.temporaryDirectory()
        let keys = ManifestCLI.keys(in: dir)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keys.key)
        let a = try ManifestCLI.sequence("alpha", in: dir)
        let output = PublishCommand.execute(key: keys.key, out: dir + "/o", paths: [a], now: ManifestCLI.now)
        #expect(output.exitCode == 0)
        #expect(output.standardError.contains("readable by others"))
    }

    @Test func tamperedArtifactsAreReportedWithOutcomeNames() async throws {
        let dir = try ManifestCLI.temporaryDirectory()
        let keys = ManifestCLI.keys(in: dir)
        let a = try ManifestCLI.sequence("alpha", in: dir)
        let out = dir + "/public"
        #expect(PublishCommand.execute(key: keys.key, out: out, paths: [a], now: ManifestCLI.now).exitCode == 0)
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: out + "/sequences").first { $0.hasSuffix(".json") })
        try Data("{}".utf8).write(to: URL(fileURLWithPath: out + "/sequences/" + file))
        let output = await VerifyManifestCommand.execute(location: out, rootKey: keys.pub, json: false, now: ManifestCLI.now)
        #expect(output.exitCode == 1)
        #expect(output.standardOutput.contains("alpha v1: hash_mismatch"))
        try FileManager.default.removeItem(atPath: out + "/sequences/" + file)
        let missing = await VerifyManifestCommand.execute(location: out, rootKey: keys.pub, json: true, now: ManifestCLI.now)
        #expect(try ManifestCLI.json(missing)["entries"]?[0]?["outcome"] == "download_failed")
    }

    @Test(arguments: [
        ("valid", Int32(0), "verified"), ("tampered/sequence-altered", 1, "hash_mismatch"),
        ("tampered/sequence-signed-by-untrusted-key", 1, "signature_invalid"),
        ("tampered/entry-names-unlisted-key", 1, "unknown_signing_key"),
    ])
    func sharedFixturesGiveTheirOutcomes(_ folder: String, _ exit: Int32, _ outcome: String) async throws {
        let output = await VerifyManifestCommand.execute(
            location: ManifestCLI.root + "/Fixtures/signing/" + folder, rootKey: ManifestCLI.fixtureRootKey, json: true,
            now: ManifestCLI.now)
        #expect(output.exitCode == exit)
        let report = try ManifestCLI.json(output)
        #expect(report["status"] == "verified")
        #expect(report["manifest_version"] == 1_767_225_600_000)
        #expect(report["entries"]?[0]?["name"] == "onboarding-flow")
        #expect(report["entries"]?[0]?["version"] == 1)
        #expect(report["entries"]?[0]?["outcome"] == .string(outcome))
    }

    @Test(arguments: ["tampered/manifest-body-altered", "tampered/manifest-signed-by-untrusted-key"])
    func rejectedManifestsPrintTheirCode(_ folder: String) async throws {
        let location = ManifestCLI.root + "/Fixtures/signing/" + folder
        let json = await VerifyManifestCommand.execute(
            location: location, rootKey: ManifestCLI.fixtureRootKey, json: true, now: ManifestCLI.now)
        #expect(json.exitCode == 1)
        let report = try ManifestCLI.json(json)
        #expect(report["status"] == "rejected")
        #expect(report["error"] == "manifest_signature_invalid")
        #expect(report["entries"] == [])
        let text = await VerifyManifestCommand.execute(
            location: location, rootKey: "373e578183e6f7058caba0733c95a11b785b02aab3ef11b6f87c162cc6dcaf49", json: false,
            now: ManifestCLI.now)
        #expect(text.standardOutput.hasPrefix("manifest: rejected (manifest_signature_invalid)"))
        #expect(text.exitCode == 1)
    }

    @Test func unusableVerifyInputExitsTwo() async throws {
        let dir = try ManifestCLI.temporaryDirectory()
        let noManifest = await VerifyManifestCommand.execute(location: dir, rootKey: ManifestCLI.fixtureRootKey, json: false)
        #expect(noManifest.exitCode == 2)
        #expect(noManifest.standardError.contains("no manifest"))
        let badKey = await VerifyManifestCommand.execute(
            location: ManifestCLI.root + "/Fixtures/signing/valid", rootKey: "not-a-key", json: false)
        #expect(badKey.exitCode == 2)
        let missing = await VerifyManifestCommand.execute(location: dir + "/nope", rootKey: ManifestCLI.fixtureRootKey, json: false)
        #expect(missing.exitCode == 2)
        let insecure = await VerifyManifestCommand.execute(
            location: "http://cdn.example.com/manifest.json", rootKey: ManifestCLI.fixtureRootKey, json: false)
        #expect(insecure.exitCode == 2)
        let fetcher = InMemoryManifestFetcher()
        let notFound = await VerifyManifestCommand.execute(
            location: "https://cdn.example.com/manifest.json", rootKey: ManifestCLI.fixtureRootKey, json: false,
            fetcher: fetcher)
        #expect(notFound.exitCode == 2)
    }

    @Test func bundledExampleManifestVerifiesWithItsTestKey() async throws {
        let dir = ManifestCLI.root + "/Fixtures/manifests"
        let output = await VerifyManifestCommand.execute(
            location: dir + "/example", rootKey: dir + "/keys/example-root.pub", json: true)
        #expect(output.exitCode == 0, "\(output.standardOutput)\(output.standardError)")
        let report = try ManifestCLI.json(output)
        #expect(report["entries"]?.arrayValue?.count == 3)
    }

    @Test func durations() {
        #expect(PublishCommand.duration("30d") == Int64(2_592_000_000))
        #expect(PublishCommand.duration("12h") == Int64(43_200_000))
        #expect(PublishCommand.duration("90m") == Int64(5_400_000))
        #expect(PublishCommand.duration("3600s") == Int64(3_600_000))
        for bad in ["", "d", "0d", "-1d", "5w", "1.5h", "99999999999999999d"] { #expect(PublishCommand.duration(bad) == nil) }
    }
}

import Foundation
import StepwiseJSON
@testable import StepwiseCommands
import StepwiseTesting
import Testing

/// `manifest.schema.json` against what `stepwise publish` writes (and the signed fixtures): the
/// body after the signature line, with entries, trusted keys, an expiry and a removal.
struct PublishedManifestSchemaTests {
    /// The body of a manifest file: every byte after the first LF (SYNC.md §3.2).
    private static func body(ofManifestAt path: String) throws -> JSONValue {
        let bytes = try PackageFiles.read(path)
        let newline = try #require(bytes.firstIndex(of: 0x0A))
        return try JSONParser.parse(Array(bytes[(newline + 1)...]))
    }

    /// Two publications into one folder (the second drops a name, which `removed` then lists).
    @Test func publishedManifestMatchesTheSchema() throws {
        let folder = try DocumentSchemas.scratchFolder("publish")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(KeygenCommand.execute(name: "root", out: folder, force: false).exitCode == 0)
        #expect(KeygenCommand.execute(name: "seq", out: folder, force: false).exitCode == 0)
        let other = try DocumentSchemas.write(
            #"{"name": "other", "version": 2, "blocks": [{"type": "step", "id": "a", "handler": "h"}]}"#, to: "other.json", in: folder)
        let onboarding = PackageFiles.path("Fixtures/sequences/onboarding-flow.json")
        func publish(_ paths: [String]) -> CommandOutput {
            PublishCommand.execute(
                key: folder + "/root.key", keyID: "root-1", signingKey: folder + "/seq.key", signingKeyID: "seq-1",
                minSDK: "0.1.0", expiresIn: "30d", out: folder + "/out", paths: paths)
        }
        let first = publish([onboarding, other])
        #expect(first.exitCode == 0, "\(first.standardError)")
        let second = publish([onboarding])
        #expect(second.exitCode == 0, "\(second.standardError)")
        let manifest = try Self.body(ofManifestAt: folder + "/out/manifest.json")
        try DocumentSchemas.expectValid(manifest, SchemaCatalog.manifest, "published manifest")
        #expect(manifest["removed"]?[0]?["name"] == "other" && manifest["expires_at"] != nil)

        let path = SchemaCatalog.manifest
        try DocumentSchemas.expectRejected(manifest.replacing("/manifest_version", with: "1"), path, near: "/manifest_version")
        try DocumentSchemas.expectRejected(manifest.replacing("/sequences/0/sha256", with: "ABCDEF"), path, near: "/sequences/0/sha256")
        try DocumentSchemas.expectRejected(manifest.renaming("/signing_keys", to: "keys"), path, near: "")
        try DocumentSchemas.expectRejected(manifest.replacing("/generated_at", with: "yesterday"), path, near: "/generated_at")
    }

    @Test(arguments: ["valid", "tampered/sequence-altered", "tampered/entry-names-unlisted-key"])
    func signedFixtureMatchesTheSchema(folder: String) throws {
        let manifest = try Self.body(ofManifestAt: "Fixtures/signing/\(folder)/manifest.json")
        try DocumentSchemas.expectValid(manifest, SchemaCatalog.manifest, folder)
    }
}

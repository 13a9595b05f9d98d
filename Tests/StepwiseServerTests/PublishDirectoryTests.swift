import Foundation
import HummingbirdTesting
import HTTPTypes
import Testing
import StepwiseJSON
import StepwiseServer

@Suite("Serving a publish directory")
struct PublishDirectoryTests {
    /// An artifact's name: a SHA-256 in lowercase hex.
    static let sha = "a348fa82e3e32c7c2e7b755dc505c94fb1968b97b19ee1c7cece17885349e5f3"
    /// Writes a small publish directory and returns its path.
    static func makeDirectory(in parent: URL) throws -> String {
        let root = parent.appendingPathComponent("published", isDirectory: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("sequences", isDirectory: true), withIntermediateDirectories: true)
        try Data("c2lnbmF0dXJl\n{\"manifest_version\":1}".utf8).write(to: root.appendingPathComponent("manifest.json"))
        try Data("{\"name\":\"s\"}".utf8).write(to: root.appendingPathComponent("sequences/\(Self.sha).json"))
        try Data("c2ln".utf8).write(to: root.appendingPathComponent("sequences/\(Self.sha).sig"))
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("tenant-a", isDirectory: true), withIntermediateDirectories: true)
        try Data("c2ln\n{}".utf8).write(to: root.appendingPathComponent("tenant-a/manifest.json"))
        try Data("{}".utf8).write(to: root.appendingPathComponent("sequences/abc.json"))
        try Data("secret".utf8).write(to: root.appendingPathComponent("notes.txt"))
        try Data("{}".utf8).write(to: root.appendingPathComponent(".hidden.json"))
        try Data("top".utf8).write(to: parent.appendingPathComponent("outside.json"))
        return root.path
    }

    static func withServer(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-publish-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        let path = try makeDirectory(in: parent)
        try await ServerHarness.run(publishDirectory: PublishDirectory(path: path)) { _, client in try await body(client) }
    }

    @Test("the manifest is served byte for byte with an ETag, a short cache, and 304 on If-None-Match")
    func manifestETag() async throws {
        try await Self.withServer { client in
            let response = try await client.send(.get, "/manifests/manifest.json", key: nil)
            #expect(response.status == .ok)
            #expect(response.text == "c2lnbmF0dXJl\n{\"manifest_version\":1}")
            let etag = try #require(response.headers[.eTag])
            // The quoted SHA-256 of the bytes (`printf … | sha256sum`): a strong tag that changes only with the content.
            #expect(etag == "\"42318b385e0efe3f43542619c485a65230cde2a4a2dc41d1b886051f452850a7\"")
            #expect(response.headers[.cacheControl] == "max-age=60")
            #expect(response.headers[.contentType] == "application/json")

            let notModified = try await client.send(.get, "/manifests/manifest.json", key: nil, headers: [.ifNoneMatch: etag])
            #expect(notModified.status == .notModified)
            #expect(notModified.isBodyEmpty)
            #expect(notModified.headers[.eTag] == etag)
            let weak = try await client.send(.get, "/manifests/manifest.json", key: nil, headers: [.ifNoneMatch: "\"x\", W/\(etag)"])
            #expect(weak.status == .notModified)
            let other = try await client.send(.get, "/manifests/manifest.json", key: nil, headers: [.ifNoneMatch: "\"other\""])
            #expect(other.status == .ok)
            // HEAD: the same headers, no body.
            let head = try await client.send(.head, "/manifests/manifest.json", key: nil)
            #expect(head.status == .ok && head.isBodyEmpty)
            #expect(head.headers[.eTag] == etag && head.headers[.cacheControl] == "max-age=60")
            #expect(head.headers[.contentLength] == "35")
        }
    }

    @Test("artifacts are immutable; other files and paths outside are not served")
    func artifactsAndRefusals() async throws {
        try await Self.withServer { client in
            let sequence = try await client.send(.get, "/manifests/sequences/\(Self.sha).json", key: nil)
            #expect(sequence.status == .ok)
            #expect(sequence.headers[.cacheControl] == "max-age=31536000, immutable")
            let signature = try await client.send(.get, "/manifests/sequences/\(Self.sha).sig", key: nil)
            #expect(signature.text == "c2ln")
            #expect(signature.headers[.cacheControl] == "max-age=31536000, immutable")
            // Only content-addressed names are cached for good: a tenant's manifest, or any
            // other file, changes in place.
            for path in ["/manifests/tenant-a/manifest.json", "/manifests/sequences/abc.json"] {
                let response = try await client.send(.get, path, key: nil)
                #expect(response.status == .ok && response.headers[.cacheControl] == "max-age=60", "\(path)")
            }
            for path in [
                "/manifests/notes.txt", "/manifests/.hidden.json", "/manifests/../outside.json", "/manifests/%2E%2E/outside.json",
                "/manifests/sequences/missing.json", "/manifests/sequences",
            ] {
                let response = try await client.send(.get, path, key: nil)
                #expect(response.status == .notFound, "\(path)")
            }
        }
    }
}


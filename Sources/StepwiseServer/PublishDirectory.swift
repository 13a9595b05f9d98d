import Foundation
import StepwiseCrypto

/// A publish directory (what `stepwise publish --out DIR` writes) served read-only under
/// `/manifests/` (SYNC.md §3.11, "Serving").
///
/// Only `*.json` and `*.sig` files are served, by paths of plain names (letters, digits, `-`,
/// `_`, `.`; no hidden files, no `..`). Bytes go out exactly as stored. Each response has a
/// strong `ETag` (the SHA-256 of the bytes) and answers `If-None-Match` with 304; content-
/// addressed artifacts (`<sha256>.json`, `<sha256>.sig`) get `max-age=31536000, immutable`,
/// every other file (a manifest, wherever it is) `Cache-Control: max-age=60`.
///
/// ```swift
/// let directory = PublishDirectory(path: "out")
/// let server = SyncServer(store: store, publishDirectory: directory)
/// // GET /manifests/manifest.json, /manifests/sequences/<sha>.json, /manifests/sequences/<sha>.sig
/// ```
public struct PublishDirectory: Sendable, Hashable {
    /// The directory's path.
    public let path: String

    /// Serves `path`.
    ///
    /// - Parameter path: the directory (it may not exist yet; requests then get 404).
    public init(path: String) {
        self.path = path
    }

    /// A file ready to serve.
    struct File {
        let bytes: [UInt8]
        let contentType: String
        let cacheControl: String
        /// The quoted strong entity tag.
        let entityTag: String
    }

    /// The file at `relativePath`, or `nil` when the path is not servable or no such file exists.
    func file(at relativePath: String) -> File? {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.isEmpty, components.count <= 8 else { return nil }
        for component in components {
            guard !component.isEmpty, !component.hasPrefix("."),
                component.unicodeScalars.allSatisfy({
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0))
                })
            else { return nil }
        }
        let name = components.last!
        let contentType: String
        if name.hasSuffix(".json") {
            contentType = "application/json"
        } else if name.hasSuffix(".sig") {
            contentType = "text/plain; charset=us-ascii"
        } else {
            return nil
        }
        let fullPath = URL(fileURLWithPath: path).appendingPathComponent(relativePath).path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: fullPath, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: fullPath)
        else { return nil }
        let bytes = [UInt8](data)
        return File(
            bytes: bytes, contentType: contentType,
            cacheControl: Self.isContentAddressed(name) ? "max-age=31536000, immutable" : "max-age=60",
            entityTag: "\"\(SHA256.hexDigest(of: bytes))\"")
    }

    /// Whether a file name is what `publish` names an artifact: the SHA-256 of the sequence in
    /// lowercase hex, then `.json` or `.sig`. Only those can be cached for good; a manifest
    /// (at the top or in a tenant's folder) or any other file changes in place.
    static func isContentAddressed(_ name: Substring) -> Bool {
        let stem = name.hasSuffix(".json") ? name.dropLast(5) : name.hasSuffix(".sig") ? name.dropLast(4) : name
        return stem.count == 64 && stem.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// Whether an `If-None-Match` header value matches `entityTag` (weak comparison, `*`
    /// matches anything).
    static func matches(ifNoneMatch header: String, entityTag: String) -> Bool {
        for candidate in header.split(separator: ",") {
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == entityTag { return true }
        }
        return false
    }
}

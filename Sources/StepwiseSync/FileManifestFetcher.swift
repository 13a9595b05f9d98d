public import Foundation

/// A ``ManifestFetcher`` reading a published directory from disk (`stepwise verify-manifest DIR`).
///
/// `file:` URLs inside ``root`` are read (missing files answer 404; the size cap applies);
/// `file:` URLs outside it are refused; other URLs go to ``fallback``, or are refused without one.
///
/// ```swift
/// let dir = URL(fileURLWithPath: "public/manifests", isDirectory: true)
/// let fetcher = FileManifestFetcher(root: dir, fallback: URLSessionManifestFetcher())
/// ```
public struct FileManifestFetcher: ManifestFetcher {
    /// The directory whose files may be read.
    public let root: URL
    /// Where non-file URLs go (absolute entry URLs of a published directory).
    public let fallback: (any ManifestFetcher)?

    /// Creates a fetcher for `root`.
    public init(root: URL, fallback: (any ManifestFetcher)? = nil) {
        self.root = root
        self.fallback = fallback
    }

    /// Reads a file below ``root``, or asks ``fallback``.
    ///
    /// - Throws: ``FetchError`` `refused` outside the root, `tooLarge` over the cap, `transport`
    ///   for an unreadable file, or whatever ``fallback`` throws.
    public func fetch(_ request: HTTPRequest) async throws(FetchError) -> HTTPResponse {
        guard request.url.isFileURL else {
            guard let fallback else {
                throw FetchError(.refused, "\(TransportPolicy.redacted(request.url)): only files below the directory can be read")
            }
            return try await fallback.fetch(request)
        }
        let base = root.standardizedFileURL.path
        let path = request.url.standardizedFileURL.path
        guard path.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
            throw FetchError(.refused, "\(path) is outside \(base)")
        }
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return HTTPResponse(statusCode: 404, body: Array("not found".utf8))
        }
        if let size = (try? fm.attributesOfItem(atPath: path))?[.size] as? NSNumber, size.intValue > request.maxResponseBytes {
            throw FetchError(.tooLarge, "\(path) is \(size.intValue) bytes, more than the limit of \(request.maxResponseBytes)")
        }
        guard let data = fm.contents(atPath: path) else { throw FetchError(.transport, "cannot read \(path)") }
        guard data.count <= request.maxResponseBytes else {
            throw FetchError(.tooLarge, "\(path) exceeds the limit of \(request.maxResponseBytes) bytes")
        }
        return HTTPResponse(statusCode: 200, body: [UInt8](data))
    }
}

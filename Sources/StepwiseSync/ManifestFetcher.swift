/// Performs the GETs of manifest sync: the manifest, sequences and signatures.
///
/// Implementations must not follow redirects (return the 3xx response), must enforce
/// ``HTTPRequest/maxResponseBytes`` on `Content-Length` and while reading the body (throwing
/// `tooLarge`), and must bound the request by ``HTTPRequest/timeoutMilliseconds`` (throwing
/// `timeout`). Transport rules, retries and credentials are the caller's job.
///
/// ```swift
/// let response = try await fetcher.fetch(HTTPRequest(url: url, maxResponseBytes: 4096, timeoutMilliseconds: 10_000))
/// ```
///
/// Implementations: ``URLSessionManifestFetcher`` (network), ``InMemoryManifestFetcher`` (tests),
/// ``FileManifestFetcher`` (a published directory, for `stepwise verify-manifest DIR`).
public protocol ManifestFetcher: Sendable {
    /// Performs one GET.
    ///
    /// - Returns: the response, whatever its status (304, 3xx and 5xx included).
    /// - Throws: ``FetchError`` (`tooLarge`, `timeout`, `transport`, `refused`). Nothing else.
    func fetch(_ request: HTTPRequest) async throws(FetchError) -> HTTPResponse
}

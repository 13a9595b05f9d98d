public import Foundation

/// One GET a ``ManifestFetcher`` performs.
///
/// ```swift
/// let request = HTTPRequest(url: manifestURL, headers: ["if-none-match": etag],
///                           maxResponseBytes: 5 << 20, timeoutMilliseconds: 10_000)
/// ```
public struct HTTPRequest: Sendable, Hashable {
    /// The absolute URL.
    public var url: URL
    /// Request headers, names in lowercase (`authorization`, `if-none-match`).
    public var headers: [String: String]
    /// The body cap: a larger `Content-Length` or body makes the fetch fail with `tooLarge`.
    public var maxResponseBytes: Int
    /// Bound on the whole request (`operationTimeoutMs`).
    public var timeoutMilliseconds: UInt64

    /// Creates a request.
    public init(url: URL, headers: [String: String] = [:], maxResponseBytes: Int, timeoutMilliseconds: UInt64) {
        self.url = url
        self.headers = headers
        self.maxResponseBytes = maxResponseBytes
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}

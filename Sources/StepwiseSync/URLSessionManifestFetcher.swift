import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``ManifestFetcher`` over `URLSession`: no redirects, no cookies, no cache, capped bodies.
///
/// Each fetch uses its own ephemeral session: a 3xx is returned as it is (the redirect is
/// refused), `Content-Length` and the streamed body are checked against the cap (the transfer
/// is cancelled as soon as it is exceeded), and the whole request is bounded by its timeout.
/// Task cancellation cancels the transfer.
///
/// ```swift
/// let response = try await URLSessionManifestFetcher().fetch(
///     HTTPRequest(url: url, maxResponseBytes: 5 << 20, timeoutMilliseconds: 10_000))
/// ```
public struct URLSessionManifestFetcher: ManifestFetcher {
    /// Creates the fetcher.
    public init() {}

    /// Performs the GET.
    ///
    /// - Throws: ``FetchError`` `tooLarge`, `timeout` or `transport`. Nothing else.
    public func fetch(_ request: HTTPRequest) async throws(FetchError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = "GET"
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        return try await CappedHTTPExchange.perform(
            urlRequest, maxResponseBytes: request.maxResponseBytes, timeoutMilliseconds: request.timeoutMilliseconds,
            shownURL: TransportPolicy.redacted(request.url))
    }
}

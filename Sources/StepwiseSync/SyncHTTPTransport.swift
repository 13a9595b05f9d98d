public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one HTTP request of the sync channel.
public protocol SyncHTTPTransport: Sendable {
    /// POSTs `body` to `url` with `headers`.
    ///
    /// - Parameter timeoutMs: how long the exchange may take; the transport ends it (throwing)
    ///   by then, which the channel relies on to end a round trip by its deadline.
    /// - Returns: the status code and the body bytes.
    /// - Throws: any transport error (offline, timeout, refused redirect).
    func post(_ url: URL, headers: [String: String], body: [UInt8], timeoutMs: UInt64) async throws -> (Int, [UInt8])
}

/// The URLSession transport: no redirects followed (a 3xx is returned as is), a per-request
/// timeout, and a capped response body (the transfer is cancelled once the body exceeds
/// ``maxResponseBytes``, so a broken or hostile server cannot make the device hold a huge body).
public struct URLSessionSyncTransport: SyncHTTPTransport {
    /// The largest response body accepted, in bytes.
    public let maxResponseBytes: Int

    /// Creates the transport.
    ///
    /// - Parameter maxResponseBytes: the largest response body accepted; by default the
    ///   largest sync response the channel decodes (``SyncResponse/maximumBodyBytes``, 4 MiB),
    ///   so a larger one is refused as it streams rather than after it is held whole.
    public init(maxResponseBytes: Int = SyncResponse.maximumBodyBytes) {
        self.maxResponseBytes = maxResponseBytes
    }

    /// POSTs `body`.
    ///
    /// - Throws: ``FetchError`` `tooLarge` (the response body exceeds ``maxResponseBytes``),
    ///   `timeout` or `transport`.
    public func post(_ url: URL, headers: [String: String], body: [UInt8], timeoutMs: UInt64) async throws -> (Int, [UInt8]) {
        try await exchange("POST", url, headers: headers, body: body, timeoutMs: timeoutMs, maxBytes: maxResponseBytes)
    }

    /// GETs `url`; a body larger than `maxBytes` is refused while it streams.
    ///
    /// - Throws: ``FetchError`` `tooLarge`, `timeout` or `transport`.
    func get(_ url: URL, headers: [String: String], timeoutMs: UInt64, maxBytes: Int) async throws(FetchError) -> (Int, [UInt8]) {
        try await exchange("GET", url, headers: headers, body: nil, timeoutMs: timeoutMs, maxBytes: maxBytes)
    }

    private func exchange(
        _ method: String, _ url: URL, headers: [String: String], body: [UInt8]?, timeoutMs: UInt64, maxBytes: Int
    ) async throws(FetchError) -> (Int, [UInt8]) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        if let body { request.httpBody = Data(body) }
        let response = try await CappedHTTPExchange.perform(
            request, maxResponseBytes: maxBytes, timeoutMilliseconds: timeoutMs, shownURL: TransportPolicy.redacted(url))
        return (response.statusCode, response.body)
    }
}

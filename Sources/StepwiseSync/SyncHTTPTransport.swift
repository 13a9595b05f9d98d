public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Sends one HTTP request of the sync channel.
public protocol SyncHTTPTransport: Sendable {
    /// POSTs `body` to `url` with `headers`.
    ///
    /// - Returns: the status code and the body bytes.
    /// - Throws: any transport error (offline, timeout, refused redirect).
    func post(_ url: URL, headers: [String: String], body: [UInt8], timeoutMs: UInt64) async throws -> (Int, [UInt8])
}

/// The URLSession transport: no redirects followed (a 3xx is returned as is), a per-request timeout.
public final class URLSessionSyncTransport: NSObject, SyncHTTPTransport, URLSessionTaskDelegate, @unchecked Sendable {
    // `session` is created once in init and never mutated.
    private var session: URLSession!

    /// Creates the transport.
    public override init() {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    public func post(_ url: URL, headers: [String: String], body: [UInt8], timeoutMs: UInt64) async throws -> (Int, [UInt8]) {
        var request = URLRequest(url: url, timeoutInterval: Double(timeoutMs) / 1000)
        request.httpMethod = "POST"
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        request.httpBody = Data(body)
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, [UInt8](data))
    }

    /// Runs a request on the transport's session (redirects refused).
    func sessionData(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await session.data(for: request)
    }

    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

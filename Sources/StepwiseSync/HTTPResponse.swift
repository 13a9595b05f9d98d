/// What a ``ManifestFetcher`` received: status, headers and the (capped) body.
///
/// Redirects are never followed, so a 3xx arrives here as it is.
///
/// ```swift
/// let response = HTTPResponse(statusCode: 200, headers: ["etag": "\"v1\""], body: bytes)
/// response.header("ETag")   // "\"v1\""
/// ```
public struct HTTPResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var statusCode: Int
    /// Response headers, names in lowercase.
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response; header names are lowercased.
    public init(statusCode: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.statusCode = statusCode
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
    }

    /// The value of header `name` (case-insensitive), or `nil`.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200...299).contains(statusCode) }
}

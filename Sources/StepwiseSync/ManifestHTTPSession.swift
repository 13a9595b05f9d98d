import Foundation
import StepwiseExecution

/// One sync's HTTP rules on top of a ``ManifestFetcher`` (SYNC.md §1, §3.5): transport policy,
/// bearer token for the manifest's origin only (read once, refreshed once on a 401), and
/// retries of 5xx, 429 and timeouts (not of other transport errors) (3 at most; 200 ms, then × U[1.5, 2.5); `Retry-After`
/// seconds replace a delay, capped at 30 s).
///
/// An actor so a sync can hand it to the entry checks; one sync uses it at a time.
actor ManifestHTTPSession {
    /// How a GET ended when it produced no usable response.
    enum Failure: Error {
        /// The transport policy refused the URL.
        case refused(String)
        /// The body exceeded the cap.
        case tooLarge(String)
        /// No response after the retries (timeouts, connection errors).
        case unreachable(String)
        /// The token provider failed.
        case tokenProvider(String)
    }

    static let maxRetries = 3
    static let firstDelayMilliseconds: Double = 200
    static let maxRetryAfterMilliseconds: UInt64 = 30_000

    let fetcher: any ManifestFetcher
    let policy: TransportPolicy
    let timeoutMilliseconds: UInt64
    let sleep: @Sendable (UInt64) async throws -> Void
    let tokenProvider: (any TokenProvider)?
    /// `scheme://host:port` of the manifest URL: the only origin that gets the token.
    let authorizedOrigin: String?
    var random: SeededRandom

    private var token: String?
    private var tokenRead = false
    private var refreshed = false
    /// Delays slept so far, in milliseconds (for tests and diagnostics).
    private(set) var delays: [UInt64] = []

    init(
        fetcher: any ManifestFetcher, policy: TransportPolicy, timeoutMilliseconds: UInt64,
        sleep: @escaping @Sendable (UInt64) async throws -> Void, tokenProvider: (any TokenProvider)?,
        manifestURL: URL, random: SeededRandom
    ) {
        self.fetcher = fetcher
        self.policy = policy
        self.timeoutMilliseconds = timeoutMilliseconds
        self.sleep = sleep
        self.tokenProvider = tokenProvider
        self.authorizedOrigin = TransportPolicy.origin(of: manifestURL)
        self.random = random
    }

    /// GETs `url` with the rules above.
    ///
    /// - Returns: the final response (any status, after retries and one refresh on 401).
    /// - Throws: ``Failure``.
    func get(_ url: URL, maxBytes: Int, headers: [String: String] = [:]) async throws(Failure) -> HTTPResponse {
        if let reason = policy.refusal(for: url) { throw .refused(reason) }
        let authorized = tokenProvider != nil && TransportPolicy.origin(of: url) == authorizedOrigin && !url.isFileURL
        var retries = 0
        var delay = Self.firstDelayMilliseconds
        while true {
            var request = HTTPRequest(
                url: url, headers: headers, maxResponseBytes: maxBytes, timeoutMilliseconds: timeoutMilliseconds)
            if authorized, let token = try await currentToken() { request.headers["authorization"] = "Bearer \(token)" }
            let response: HTTPResponse
            do {
                response = try await fetcher.fetch(request)
            } catch {
                switch error.code {
                case .tooLarge: throw .tooLarge(error.message)
                case .refused: throw .refused(error.message)
                case .timeout where retries < Self.maxRetries:
                    try await pause(Self.milliseconds(delay))
                    retries += 1
                    delay *= nextFactor()
                    continue
                default: throw .unreachable(error.message)
                }
            }
            if response.statusCode == 401, authorized, !refreshed, let provider = tokenProvider {
                refreshed = true
                do { token = try await provider.refreshToken() } catch {
                    throw .tokenProvider("refreshing the token failed")
                }
                continue
            }
            if response.statusCode == 429 || (500...599).contains(response.statusCode), retries < Self.maxRetries {
                var wait = Self.milliseconds(delay)
                if let retryAfter = response.header("retry-after").flatMap({ UInt64($0.strippingASCIIWhitespace()) }) {
                    wait = min(retryAfter.multipliedReportingOverflow(by: 1000).overflow ? .max : retryAfter * 1000,
                        Self.maxRetryAfterMilliseconds)
                }
                try await pause(wait)
                retries += 1
                delay *= nextFactor()
                continue
            }
            return response
        }
    }

    private func currentToken() async throws(Failure) -> String? {
        if !tokenRead {
            tokenRead = true
            do { token = try await tokenProvider?.currentToken() } catch {
                throw .tokenProvider("the token provider failed")
            }
        }
        return token
    }

    private func pause(_ milliseconds: UInt64) async throws(Failure) {
        delays.append(milliseconds)
        do { try await sleep(milliseconds) } catch { throw .unreachable("cancelled while waiting to retry") }
    }

    /// A factor drawn uniformly from [1.5, 2.5).
    private func nextFactor() -> Double {
        1.5 + Double(random.next() >> 11) / Double(1 << 53)
    }

    private static func milliseconds(_ value: Double) -> UInt64 { UInt64(value.rounded()) }
}

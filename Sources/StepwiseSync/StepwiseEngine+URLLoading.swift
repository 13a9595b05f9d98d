public import Foundation
public import StepwiseExecution
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Supplies the bearer token for authenticated downloads.
public protocol TokenProvider: Sendable {
    /// The current token.
    func currentToken() async throws -> String
    /// A fresh token after a 401.
    func refreshToken() async throws -> String
}

extension StepwiseEngine {
    /// Downloads a JSON array of sequences and loads it all-or-nothing (SEMANTICS §6.5): GET
    /// `url` (or `sequencesUrl`), https only (loopback http with `allowInsecureLocalhost`), no
    /// redirects, body ≤ 5 MiB, bounded by `operationTimeoutMs`; on a 401 the token is refreshed
    /// once. Unsigned: prefer signed-manifest sync in production.
    ///
    /// - Returns: the number of versions newly stored.
    /// - Throws: ``StepwiseError`` `invalidInput` (no or bad URL), `network`, `unauthorized`
    ///   (also when the token provider throws), `shutdown`, and everything
    ///   ``loadSequences(jsonArray:)`` throws.
    public func loadSequences(
        from url: URL? = nil, tokenProvider: (any TokenProvider)? = nil
    ) async throws(StepwiseError) -> Int {
        try checkOpen()
        guard let target = url ?? URL(string: configuration.sequencesUrl), !(url == nil && configuration.sequencesUrl.isEmpty)
        else { throw StepwiseError(.invalidInput, "no URL given and sequencesUrl is empty") }
        // The sync channel's transport rules (SYNC.md §1): https, no loopback or private
        // IP-literal hosts unless allowInsecureLocalhost, messages without query strings.
        if let refusal = TransportPolicy(allowInsecureLocalhost: configuration.allowInsecureLocalhost).refusal(for: target) {
            let https = target.scheme?.lowercased() == "https"
            throw StepwiseError(.invalidInput, https ? "sequences URL refused: \(refusal)" : "sequences URL must use https (\(refusal))")
        }
        let transport = URLSessionSyncTransport()
        var token: String?
        if let tokenProvider { token = try await Self.token { try await tokenProvider.currentToken() } }
        for attempt in 0..<2 {
            var headers: [String: String] = [:]
            if let token { headers["authorization"] = "Bearer \(token)" }
            let status: Int
            let body: [UInt8]
            do {
                (status, body) = try await transport.get(
                    target, headers: headers, timeoutMs: configuration.operationTimeoutMs, maxBytes: 5 * 1_048_576)
            } catch {
                throw StepwiseError(.network, "cannot download the sequences: \(error.message)")
            }
            if status == 401, attempt == 0, let provider = tokenProvider {
                token = try await Self.token { try await provider.refreshToken() }
                continue
            }
            if status == 401 || status == 403 { throw StepwiseError(.unauthorized, "the sequences URL answered HTTP \(status)") }
            guard (200..<300).contains(status) else { throw StepwiseError(.network, "the sequences URL answered HTTP \(status)") }
            return try loadSequences(jsonArray: body)
        }
        throw StepwiseError(.unauthorized, "the sequences URL refused the refreshed token")
    }

    /// A token from the host's provider; whatever it throws becomes `unauthorized` (every call
    /// of the engine throws ``StepwiseError``).
    private static func token(_ provide: () async throws -> String) async throws(StepwiseError) -> String {
        do {
            return try await provide()
        } catch let error as StepwiseError {
            throw error
        } catch {
            throw StepwiseError(.unauthorized, "the token provider failed: \(error)")
        }
    }
}

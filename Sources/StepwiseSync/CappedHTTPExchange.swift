import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange over its own ephemeral `URLSession` with a capped response body: the
/// manifest fetcher's GETs, the sync channel's POSTs and sequence downloads all go through it.
///
/// A 3xx is returned as it is (the redirect is refused); no cookies or cache; `Content-Length`
/// and the streamed body are checked against the cap, and the transfer is cancelled as soon as
/// it is exceeded, so a hostile or broken server cannot make the device hold a huge body; the
/// whole exchange is bounded by its timeout. Task cancellation cancels the transfer.
enum CappedHTTPExchange {
    /// Performs `request` (its method, headers and body as given).
    ///
    /// - Throws: ``FetchError`` `tooLarge` (the body exceeds `maxResponseBytes`), `timeout` or
    ///   `transport`, each naming `shownURL` (a URL without credentials). Nothing else.
    static func perform(
        _ request: URLRequest, maxResponseBytes: Int, timeoutMilliseconds: UInt64, shownURL: String
    ) async throws(FetchError) -> HTTPResponse {
        // Foundation on Linux keeps these intervals in whole seconds (0.9 s acts as 0 or 1 s):
        // URLSession gets a bound rounded up past ours, and a timer of our own ends the
        // exchange at the exact limit.
        // Capped at a year: Foundation converts the interval to an integer, and a huge one
        // (`UInt64.max`, "never") would trap there.
        let seconds = min((Double(timeoutMilliseconds) / 1000).rounded(.up) + 1, 365 * 86_400)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        var request = request
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.timeoutInterval = seconds
        let delegate = FetchDelegate(maxBytes: maxResponseBytes, shownURL: shownURL)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        // A Dispatch timer, not a sleeping task: a busy cooperative pool must not delay it.
        let timer = DispatchWorkItem {
            delegate.timeOut()
            task.cancel()
        }
        // Past a day whole seconds are exact enough: URLSession's own bound applies (and the
        // Dispatch interval, counted in nanoseconds, cannot overflow).
        if timeoutMilliseconds <= 86_400_000 {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(timeoutMilliseconds)), execute: timer)
        }
        defer { timer.cancel() }
        let result: Result<HTTPResponse, FetchError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                delegate.start(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        return try result.get()
    }

    /// The error's kind without its URL (URLError descriptions may quote the full URL).
    static func describe(_ error: any Error) -> String {
        guard let urlError = error as? URLError else { return "transport error" }
        let what: String
        switch urlError.code {
        case .cannotConnectToHost: what = "connection refused: nothing answers at the server's address"
        case .timedOut: what = "the server did not answer in time"
        case .cannotFindHost, .dnsLookupFailed: what = "the server's host name cannot be resolved"
        case .notConnectedToInternet: what = "no network connection"
        case .networkConnectionLost: what = "the connection was lost"
        case .secureConnectionFailed: what = "the TLS connection failed"
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid:
            what = "the server's TLS certificate is not trusted"
        case .badServerResponse, .cannotParseResponse: what = "the server's response is not valid HTTP"
        case .zeroByteResource: what = "the server's response is empty"
        default: what = "transport failure"
        }
        return "\(what) (URL error \(urlError.code.rawValue))"
    }
}

/// Collects one task's response under a lock; URLSession calls it on its own queue.
///
/// `@unchecked Sendable`: every mutable field lives in `state` and is touched only through its
/// `Mutex`; `maxBytes` and `shownURL` are immutable.
private final class FetchDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<HTTPResponse, FetchError>, Never>?
        var response: HTTPURLResponse?
        var body: [UInt8] = []
        var failure: FetchError?
    }

    private let state = Mutex(State())
    private let maxBytes: Int
    private let shownURL: String

    init(maxBytes: Int, shownURL: String) {
        self.maxBytes = maxBytes
        self.shownURL = shownURL
    }

    func start(_ continuation: CheckedContinuation<Result<HTTPResponse, FetchError>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Marks the exchange timed out (the caller then cancels the transfer).
    func timeOut() {
        state.withLock { s in
            if s.failure == nil { s.failure = FetchError(.timeout, "\(shownURL): timed out") }
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let declared = response.expectedContentLength
        if declared > Int64(maxBytes) {
            state.withLock {
                $0.failure = FetchError(.tooLarge, "\(shownURL): Content-Length \(declared) exceeds the limit of \(maxBytes) bytes")
            }
            completionHandler(.cancel)
            return
        }
        state.withLock { $0.response = response as? HTTPURLResponse }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let exceeded = state.withLock { s -> Bool in
            guard s.failure == nil else { return false }
            s.body.append(contentsOf: data)
            if s.body.count > maxBytes {
                s.failure = FetchError(.tooLarge, "\(shownURL): body exceeds the limit of \(maxBytes) bytes")
                s.body = []
                return true
            }
            return false
        }
        if exceeded { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result) = state.withLock { s -> (CheckedContinuation<Result<HTTPResponse, FetchError>, Never>?, Result<HTTPResponse, FetchError>) in
            let continuation = s.continuation
            s.continuation = nil
            if let failure = s.failure { return (continuation, .failure(failure)) }
            if let error {
                let code = (error as? URLError)?.code
                if code == .timedOut { return (continuation, .failure(FetchError(.timeout, "\(shownURL): timed out"))) }
                if code == .cancelled { return (continuation, .failure(FetchError(.transport, "\(shownURL): cancelled"))) }
                return (continuation, .failure(FetchError(.transport, "\(shownURL): \(CappedHTTPExchange.describe(error))")))
            }
            guard let http = s.response ?? (task.response as? HTTPURLResponse) else {
                return (continuation, .failure(FetchError(.transport, "\(shownURL): no HTTP response")))
            }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String { headers[name.lowercased()] = "\(value)" }
            }
            return (continuation, .success(HTTPResponse(statusCode: http.statusCode, headers: headers, body: s.body)))
        }
        continuation?.resume(returning: result)
    }
}

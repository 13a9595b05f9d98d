public import Foundation
import Synchronization

/// A ``ManifestFetcher`` serving bytes from memory: for tests, previews and examples.
///
/// Resources answer `200` with their headers; a resource with an `etag` header answers `304`
/// to a matching `If-None-Match`. Scripted answers queued with ``enqueue(_:_:)`` are used first,
/// in order (5xx, timeouts, redirects, 401…). Unknown URLs answer `404`. The size cap of each
/// request is enforced on `Content-Length` and on the body, as a network fetcher would. Every
/// request is recorded.
///
/// ```swift
/// let fetcher = InMemoryManifestFetcher()
/// fetcher.serve("https://cdn.example.com/manifest.json", body: manifestBytes, headers: ["ETag": "\"v1\""])
/// fetcher.enqueue("https://cdn.example.com/manifest.json", .response(HTTPResponse(statusCode: 503)))
/// ```
public final class InMemoryManifestFetcher: ManifestFetcher {
    /// A one-shot answer.
    public enum Scripted: Sendable, Hashable {
        /// Answer with this response.
        case response(HTTPResponse)
        /// Fail with this error.
        case failure(FetchError)
    }

    private struct State {
        var resources: [String: HTTPResponse] = [:]
        var scripted: [String: [Scripted]] = [:]
        var requests: [HTTPRequest] = []
    }

    private let state = Mutex(State())

    /// An empty fetcher (every URL answers 404).
    public init() {}

    /// Serves `body` at `url` (its absolute string) with `statusCode` and `headers`.
    public func serve(_ url: String, body: [UInt8], statusCode: Int = 200, headers: [String: String] = [:]) {
        let response = HTTPResponse(statusCode: statusCode, headers: headers, body: body)
        state.withLock { $0.resources[url] = response }
    }

    /// Serves every file below `directory` at `baseURL` + its relative path (`baseURL` ends in `/`).
    ///
    /// - Throws: ``FetchError`` `transport` when the directory cannot be read.
    public func serveDirectory(_ directory: URL, at baseURL: String) throws(FetchError) {
        let root = directory.standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: root) else {
            throw FetchError(.transport, "cannot read directory \(root)")
        }
        while let relative = enumerator.nextObject() as? String {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: path)
            else { continue }
            serve(baseURL + relative, body: [UInt8](data))
        }
    }

    /// Stops serving `url` (it then answers 404).
    public func remove(_ url: String) {
        _ = state.withLock { $0.resources.removeValue(forKey: url) }
    }

    /// Queues a one-shot answer for `url`, used before the served resource.
    public func enqueue(_ url: String, _ answer: Scripted) {
        state.withLock { $0.scripted[url, default: []].append(answer) }
    }

    /// Every request received, in order.
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// How many requests asked for `url`.
    public func requestCount(for url: String) -> Int {
        state.withLock { s in s.requests.filter { $0.url.absoluteString == url }.count }
    }

    /// Forgets the recorded requests.
    public func clearRequests() { state.withLock { $0.requests.removeAll() } }

    /// Answers from memory.
    ///
    /// - Throws: ``FetchError`` `tooLarge` over the cap, or a scripted failure. Nothing else.
    public func fetch(_ request: HTTPRequest) async throws(FetchError) -> HTTPResponse {
        let key = request.url.absoluteString
        let answer: Scripted? = state.withLock { s in
            s.requests.append(request)
            if var queue = s.scripted[key], !queue.isEmpty {
                let first = queue.removeFirst()
                s.scripted[key] = queue
                return first
            }
            guard let resource = s.resources[key] else { return nil }
            if let etag = resource.header("etag"), request.headers["if-none-match"] == etag {
                return .response(HTTPResponse(statusCode: 304, headers: ["etag": etag]))
            }
            return .response(resource)
        }
        switch answer {
        case nil:
            return HTTPResponse(statusCode: 404, body: Array("not found".utf8))
        case .failure(let error)?:
            throw error
        case .response(let response)?:
            if let declared = response.header("content-length").flatMap(Int.init), declared > request.maxResponseBytes {
                throw FetchError(.tooLarge, "Content-Length \(declared) exceeds the limit of \(request.maxResponseBytes) bytes")
            }
            if response.body.count > request.maxResponseBytes {
                throw FetchError(.tooLarge, "body exceeds the limit of \(request.maxResponseBytes) bytes")
            }
            return response
        }
    }
}

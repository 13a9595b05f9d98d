import Foundation
import StepwiseExecution
import StepwiseSync
import Testing

@Suite("URLSessionManifestFetcher against a loopback server", .serialized)
struct URLSessionManifestFetcherTests {
    let fetcher = URLSessionManifestFetcher()

    func request(_ server: LoopbackHTTPServer, _ path: String, cap: Int = 1 << 20, timeout: UInt64 = 5_000, headers: [String: String] = [:]) -> HTTPRequest {
        HTTPRequest(url: URL(string: server.baseURL + path)!, headers: headers, maxResponseBytes: cap, timeoutMilliseconds: timeout)
    }

    @Test func returnsStatusHeadersAndBodyAndSendsTheHeaders() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/m.json", .init(headers: [("ETag", "\"v1\"")], body: Array("hello".utf8)))
        let response = try await fetcher.fetch(
            request(server, "/m.json", headers: ["if-none-match": "\"v0\"", "authorization": "Bearer t"]))
        #expect(response.statusCode == 200)
        #expect(response.body == Array("hello".utf8))
        #expect(response.header("etag") == "\"v1\"")
        #expect(server.received.first?.headers["if-none-match"] == "\"v0\"")
        #expect(server.received.first?.headers["authorization"] == "Bearer t")
        server.answer("/n.json", .init(status: 304, headers: [("ETag", "\"v1\"")]))
        #expect(try await fetcher.fetch(request(server, "/n.json")).statusCode == 304)
    }

    @Test func redirectsAreReturnedNotFollowed() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/old", .init(status: 302, headers: [("Location", server.baseURL + "/new")]))
        server.answer("/new", .init(body: Array("moved".utf8)))
        let response = try await fetcher.fetch(request(server, "/old"))
        #expect(response.statusCode == 302)
        #expect(server.received.map(\.path) == ["/old"])
    }

    @Test func declaredAndStreamedBodiesAreCapped() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/declared", .init(body: [UInt8](repeating: 65, count: 5000)))
        server.answer("/streamed", .init(body: [UInt8](repeating: 65, count: 200_000), omitContentLength: true))
        server.answer("/fits", .init(body: [UInt8](repeating: 65, count: 4096)))
        for path in ["/declared", "/streamed"] {
            let error = await #expect(throws: FetchError.self) { try await fetcher.fetch(request(server, path, cap: 4096)) }
            #expect(error?.code == .tooLarge, "\(path)")
        }
        #expect(try await fetcher.fetch(request(server, "/fits", cap: 4096)).body.count == 4096)
    }

    @Test func slowServersTimeOut() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/slow", .init(body: [1], delayMilliseconds: 1500))
        let error = await #expect(throws: FetchError.self) { try await fetcher.fetch(request(server, "/slow", timeout: 200)) }
        #expect(error?.code == .timeout)
    }

    /// The limit is kept to the millisecond: Foundation on Linux would count 1.95 s as 1 s.
    @Test func aTimeoutIsNotRoundedDownToWholeSeconds() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/late", .init(body: [1], delayMilliseconds: 1_100))
        #expect(try await fetcher.fetch(request(server, "/late", timeout: 1_950)).body == [1])
    }

    @Test func connectionFailuresAreTransportErrorsWithoutTheQuery() async throws {
        let server = try LoopbackHTTPServer()
        let port = server.port
        server.stop()
        let url = URL(string: "http://127.0.0.1:\(port)/m.json?token=secret")!
        let error = await #expect(throws: FetchError.self) {
            try await fetcher.fetch(HTTPRequest(url: url, maxResponseBytes: 100, timeoutMilliseconds: 2000))
        }
        #expect(error?.code == .transport || error?.code == .timeout)
        #expect(error?.message.contains("secret") == false)
    }

    @Test func endToEndSyncOfTheValidFixtureOverHTTP() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let dir = packageRoot().appendingPathComponent("Fixtures/signing/valid")
        let sha = "5d2d679c8ebae78707a44e312db091df7da50b347186c6e5896b4bdc35a5ce94"
        let manifest = [UInt8](try Data(contentsOf: dir.appendingPathComponent("manifest.json")))
        server.answer("/app/manifest.json", .init(headers: [("ETag", "\"fixture\"")], body: manifest))
        for ext in ["json", "sig"] {
            let bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent("sequences/\(sha).\(ext)")))
            server.answer("/app/sequences/\(sha).\(ext)", .init(body: bytes))
        }
        let installer = InMemorySequenceInstaller()
        let synchronizer = ManifestSynchronizer(
            installer: installer,
            configuration: ManifestSyncConfiguration(rootKeys: TestKeys.roots, allowInsecureLocalhost: true),
            fetcher: URLSessionManifestFetcher(), clock: VirtualClock(start: 1_767_225_600_000), randomSeed: 7,
            sleep: { _ in })
        let url = URL(string: server.baseURL + "/app/manifest.json")!
        let result = try await synchronizer.sync(manifestURL: url)
        #expect(result.status == .applied)
        #expect(result.outcomes == ["installed"])
        server.answer("/app/manifest.json", .init(status: 304, headers: [("ETag", "\"fixture\"")]))
        let second = try await synchronizer.sync(manifestURL: url)
        #expect(second.status == .notModified)
        #expect(server.received.last?.headers["if-none-match"] == "\"fixture\"")
    }
}

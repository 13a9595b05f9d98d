import Foundation
import StepwiseSync
import Testing

@Suite("URLSessionSyncTransport against a loopback server", .serialized)
struct URLSessionSyncTransportTests {
    @Test func postsTheBodyAndHeadersAndReturnsStatusAndBody() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/sync", .init(status: 201, body: Array(#"{"ok":true}"#.utf8)))
        let transport = URLSessionSyncTransport()
        let (status, body) = try await transport.post(
            URL(string: server.baseURL + "/sync")!, headers: ["x-device-id": "d1", "content-type": "application/json"],
            body: Array(#"{"rows":[]}"#.utf8), timeoutMs: 5_000)
        #expect(status == 201)
        #expect(body == Array(#"{"ok":true}"#.utf8))
        let received = try #require(server.received.first)
        #expect(received.method == "POST")
        #expect(received.headers["x-device-id"] == "d1")
        #expect(received.body == Array(#"{"rows":[]}"#.utf8))
    }

    @Test func oversizedResponsesAreRefusedWhileTheyStream() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/declared", .init(body: [UInt8](repeating: 65, count: 5000)))
        server.answer("/streamed", .init(body: [UInt8](repeating: 65, count: 200_000), omitContentLength: true))
        server.answer("/fits", .init(body: [UInt8](repeating: 65, count: 4096)))
        let transport = URLSessionSyncTransport(maxResponseBytes: 4096)
        for path in ["/declared", "/streamed"] {
            let error = await #expect(throws: FetchError.self) {
                _ = try await transport.post(URL(string: server.baseURL + path)!, headers: [:], body: [], timeoutMs: 5_000)
            }
            #expect(error?.code == .tooLarge, "\(path)")
            #expect(error?.message.contains("exceeds the limit of 4096 bytes") == true, "\(path)")
        }
        let (_, body) = try await transport.post(URL(string: server.baseURL + "/fits")!, headers: [:], body: [], timeoutMs: 5_000)
        #expect(body.count == 4096)
    }

    @Test func redirectsAreReturnedNotFollowed() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/old", .init(status: 307, headers: [("Location", server.baseURL + "/new")]))
        let (status, _) = try await URLSessionSyncTransport().post(
            URL(string: server.baseURL + "/old")!, headers: [:], body: [1], timeoutMs: 5_000)
        #expect(status == 307)
        #expect(server.received.map(\.path) == ["/old"])
    }
}

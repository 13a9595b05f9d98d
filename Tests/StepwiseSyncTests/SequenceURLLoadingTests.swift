import Foundation
import Stepwise
import Testing

/// `loadSequences(from:)` against a loopback server (SEMANTICS §6.5): the body is capped while
/// it streams, transport failures are `network` errors, a 401 refreshes the token once.
@Suite("Loading sequences from a URL", .serialized)
struct SequenceURLLoadingTests {
    final class Database: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("url-load-\(UUID().uuidString).db").path
        deinit { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
    }

    struct Tokens: TokenProvider {
        func currentToken() async throws -> String { "old" }
        func refreshToken() async throws -> String { "new" }
    }

    static let array = Array(#"[{"name": "flow", "version": 1, "blocks": [{"type": "step", "id": "a", "handler": "noop"}]}]"#.utf8)

    func makeEngine(_ database: Database) throws -> StepwiseEngine {
        var configuration = EngineConfiguration()
        configuration.allowInsecureLocalhost = true
        return try StepwiseEngine(store: try SQLiteExecutionStore(path: database.path), configuration: configuration)
    }

    @Test func loadsTheArrayWithTheBearerToken() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/sequences.json", .init(body: Self.array))
        let database = Database()
        let engine = try makeEngine(database)
        let stored = try await engine.loadSequences(from: URL(string: server.baseURL + "/sequences.json")!, tokenProvider: Tokens())
        #expect(stored == 1)
        #expect(await engine.loadedSequences().map(\.key.name) == ["flow"])
        #expect(server.received.first?.headers["authorization"] == "Bearer old")
        await engine.shutdown()
    }

    @Test func aBodyOverFiveMiBIsRefusedAsANetworkError() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/huge.json", .init(body: [UInt8](repeating: 32, count: 5 * 1_048_576 + 1), omitContentLength: true))
        let database = Database()
        let engine = try makeEngine(database)
        let error = await #expect(throws: StepwiseError.self) {
            try await engine.loadSequences(from: URL(string: server.baseURL + "/huge.json")!)
        }
        #expect(error?.code == .network)
        #expect(error?.message.contains("exceeds the limit of 5242880 bytes") == true)
        #expect(await engine.loadedSequences().isEmpty)
        await engine.shutdown()
    }

    @Test func anUnreachableServerIsANetworkError() async throws {
        let server = try LoopbackHTTPServer()
        let url = URL(string: server.baseURL + "/sequences.json")!
        server.stop()
        let database = Database()
        let engine = try makeEngine(database)
        let error = await #expect(throws: StepwiseError.self) { try await engine.loadSequences(from: url) }
        #expect(error?.code == .network)
        await engine.shutdown()
    }

    @Test func a401RefreshesTheTokenOnce() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/sequences.json", .init(status: 401))
        let database = Database()
        let engine = try makeEngine(database)
        let error = await #expect(throws: StepwiseError.self) {
            try await engine.loadSequences(from: URL(string: server.baseURL + "/sequences.json")!, tokenProvider: Tokens())
        }
        #expect(error?.code == .unauthorized)
        #expect(server.received.map { $0.headers["authorization"] } == ["Bearer old", "Bearer new"])
        await engine.shutdown()
    }

    struct FailingTokens: TokenProvider {
        struct Outage: Error {}
        func currentToken() async throws -> String { throw Outage() }
        func refreshToken() async throws -> String { throw Outage() }
    }

    /// Every call throws ``StepwiseError``: a provider's own error becomes `unauthorized`, and
    /// after `shutdown()` nothing is fetched at all.
    @Test func aFailingTokenProviderAndAShutEngineThrowStepwiseErrors() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.answer("/sequences.json", .init(body: Self.array))
        let database = Database()
        let engine = try makeEngine(database)
        let url = URL(string: server.baseURL + "/sequences.json")!
        let provider = await #expect(throws: StepwiseError.self) { try await engine.loadSequences(from: url, tokenProvider: FailingTokens()) }
        #expect(provider?.code == .unauthorized)
        #expect(provider?.message.contains("the token provider failed") == true)
        await engine.shutdown()
        let closed = await #expect(throws: StepwiseError.self) { try await engine.loadSequences(from: url) }
        #expect(closed?.code == .shutdown)
        let noURL = await #expect(throws: StepwiseError.self) { try await engine.loadSequences() }
        #expect(noURL?.code == .shutdown)
        #expect(server.received.isEmpty)
    }

    @Test func theSyncTransportRulesApply() async throws {
        let database = Database()
        let engine = try StepwiseEngine(store: try SQLiteExecutionStore(path: database.path), configuration: EngineConfiguration())
        for (url, fragment) in [
            ("http://cdn.example.com/s.json", "must use https"),
            ("https://10.0.0.7/s.json", "private"),
            ("https://127.0.0.1/s.json?token=secret", "allowInsecureLocalhost"),
            ("http://localhost:8080/s.json", "allowInsecureLocalhost"),
            ("ftp://example.com/s.json", "only https"),
        ] {
            let error = await #expect(throws: StepwiseError.self) { try await engine.loadSequences(from: URL(string: url)!) }
            #expect(error?.code == .invalidInput, "\(url)")
            #expect(error?.message.contains(fragment) == true, "\(url): \(error?.message ?? "")")
            #expect(error?.message.contains("secret") == false)
        }
        await engine.shutdown()
    }
}

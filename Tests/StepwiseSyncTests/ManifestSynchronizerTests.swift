import Foundation
import StepwiseCrypto
import StepwiseExecution
import StepwiseJSON
import StepwiseSync
import Synchronization
import Testing

@Suite("ManifestSynchronizer: manifest-level rules")
struct ManifestSyncManifestTests {
    @Test func emptyRootKeyThrowsSyncNotConfiguredWithoutFetching() async throws {
        let harness = SyncHarness(roots: try ManifestRootKeys(rootPublicKey: ""))
        let error = await #expect(throws: SyncError.self) { try await harness.sync(URL(string: "https://cdn.test/m.json")!) }
        #expect(error?.code == .syncNotConfigured)
        #expect(harness.fetcher.requests.isEmpty)
    }

    @Test(arguments: [
        "http://cdn.test/app/manifest.json", "https://127.0.0.1/manifest.json", "http://localhost/manifest.json",
        "https://192.168.1.10/manifest.json", "https://[::1]/manifest.json", "ftp://cdn.test/manifest.json",
        "https://2130706433/manifest.json",
    ])
    func manifestURLMustPassTheTransportRules(_ url: String) async {
        let harness = SyncHarness()
        let error = await #expect(throws: SyncError.self) { try await harness.sync(URL(string: url)!) }
        #expect(error?.code == .invalidInput)
        #expect(harness.fetcher.requests.isEmpty)
    }

    @Test(arguments: ["http://127.0.0.1:8080/app/", "http://localhost:9000/app/"])
    func allowInsecureLocalhostAllowsLoopbackHTTP(_ base: String) async throws {
        let harness = SyncHarness(allowInsecureLocalhost: true)
        var builder = ManifestBuilder(base: base)
        builder.addSequence("flow", version: 1, on: harness.fetcher)
        builder.serve(on: harness.fetcher)
        let result = try await harness.sync(builder.manifestURL)
        #expect(result.outcomes == ["installed"])
    }

    @Test func manifestOverTheCapIsTooLargeAndRecordsNothing() async throws {
        let harness = SyncHarness()
        let url = "https://cdn.test/app/manifest.json"
        harness.fetcher.serve(url, body: [UInt8](repeating: 0x41, count: 5 * 1_048_576 + 1))
        let error = await #expect(throws: SyncError.self) { try await harness.sync(URL(string: url)!) }
        #expect(error?.reason == .tooLarge)
        harness.fetcher.serve(url, body: [1], headers: ["Content-Length": "9999999999"])
        let declared = await #expect(throws: SyncError.self) { try await harness.sync(URL(string: url)!) }
        #expect(declared?.reason == .tooLarge)
        #expect(harness.fetcher.requests.allSatisfy { $0.maxResponseBytes == 5 * 1_048_576 })
        #expect(await harness.installer.state == nil)
    }

    @Test func rejectedManifestAfterAnAcceptedOneChangesNothing() async throws {
        let harness = SyncHarness()
        var builder = ManifestBuilder()
        builder.addSequence("flow", version: 1, on: harness.fetcher)
        builder.serve(on: harness.fetcher, headers: ["ETag": "\"a\""])
        _ = try await harness.sync(builder.manifestURL)
        let before = await harness.installer.state
        builder.manifestVersion += 1
        builder.entries = []
        builder.serve(on: harness.fetcher, signedBy: TestKeys.untrusted, headers: ["ETag": "\"b\""])
        let error = await #expect(throws: SyncError.self) { try await harness.sync(builder.manifestURL) }
        #expect(error?.reason == .manifestSignatureInvalid)
        #expect(await harness.installer.state == before)
        #expect(await harness.installer.keys.map(\.name) == ["flow"], "no retirement either")
        builder.expiresAt = "2025-01-01T00:00:00Z"
        builder.serve(on: harness.fetcher)
        let expired = await #expect(throws: SyncError.self) { try await harness.sync(builder.manifestURL) }
        #expect(expired?.reason == .manifestExpired)
        #expect(await harness.installer.state == before)
    }

    @Test func olderManifestIsStaleAndStillRunsRetries() async throws {
        let harness = SyncHarness()
        var builder = ManifestBuilder()
        builder.manifestVersion = 10
        let url = builder.addSequence("flow", version: 1, on: harness.fetcher)
        harness.fetcher.remove(url)
        builder.serve(on: harness.fetcher)
        let first = try await harness.sync(builder.manifestURL)
        #expect(first.outcomes == ["download_failed"])
        #expect(first.entries.first?.retryPending == true)
        // A replayed older manifest: refused as stale, but the pending entry is retried.
        var old = ManifestBuilder()
        old.manifestVersion = 9
        old.serve(on: harness.fetcher)
        harness.fetcher.serve(url, body: sequenceDocument("flow", version: 1))
        let second = try await harness.sync(old.manifestURL)
        #expect(second.status == .stale)
        #expect(second.manifestVersion == 10)
        #expect(second.outcomes == ["installed"])
        #expect(await harness.installer.state?.lastAppliedVersion == 10)
        #expect(second.warnings.first?.contains("older") == true)
    }

    @Test func etagIsSentOnlyForTheSameURLAnd304RunsRetries() async throws {
        let harness = SyncHarness()
        var builder = ManifestBuilder()
        let url = builder.addSequence("flow", version: 1, on: harness.fetcher)
        harness.fetcher.enqueue(url, .response(HTTPResponse(statusCode: 404)))
        builder.serve(on: harness.fetcher, headers: ["ETag": "W/\"1\""])
        #expect(try await harness.sync(builder.manifestURL).outcomes == ["download_failed"])
        let other = URL(string: "https://cdn.test/app/manifest.json?v=2")!
        harness.fetcher.enqueue(other.absoluteString, .response(HTTPResponse(statusCode: 304)))
        // Another URL gets no If-None-Match, so a 304 there is a protocol error.
        let error = await #expect(throws: SyncError.self) { try await harness.sync(other) }
        #expect(error?.code == .network)
        #expect(harness.fetcher.requests.last?.headers["if-none-match"] == nil)
        let result = try await harness.sync(builder.manifestURL)
        #expect(harness.fetcher.requests.last(where: { $0.url == builder.manifestURL })?.headers["if-none-match"] == "W/\"1\"")
        #expect(result.status == .notModified)
        #expect(result.outcomes == ["installed"])
        #expect(result.manifestVersion == builder.manifestVersion)
    }

    @Test func serverErrorsAreRetriedWithBackoffThenFail() async throws {
        let harness = SyncHarness()
        let url = "https://cdn.test/app/manifest.json?token=secret"
        for _ in 0..<4 { harness.fetcher.enqueue(url, .response(HTTPResponse(statusCode: 503))) }
        let error = await #expect(throws: SyncError.self) { try await harness.sync(URL(string: url)!) }
        #expect(error?.code == .network)
        #expect(error?.httpStatus == 503)
        #expect(error?.message.contains("secret") == false)
        #expect(harness.fetcher.requestCount(for: url) == 4, "1 attempt + 3 retries")
        let delays = harness.sleeper.recorded
        #expect(delays.count == 3)
        #expect(delays.first == 200)
        #expect(delays[1] >= 300 && delays[1] < 500)
        #expect(Double(delays[2]) >= Double(delays[1]) * 1.5 - 1 && Double(delays[2]) < Double(delays[1]) * 2.5 + 1)
    }

    @Test func retryAfterReplacesTheDelayAndIsCapped() async throws {
        let harness = SyncHarness()
        let builder = ManifestBuilder()
        builder.serve(on: harness.fetcher)
        let url = builder.manifestURL.absoluteString
        harness.fetcher.enqueue(url, .response(HTTPResponse(statusCode: 429, headers: ["Retry-After": "5"])))
        harness.fetcher.enqueue(url, .response(HTTPResponse(statusCode: 500, headers: ["Retry-After": "120"])))
        harness.fetcher.enqueue(url, .failure(FetchError(.timeout, "slow")))
        let result = try await harness.sync(builder.manifestURL)
        #expect(result.status == .applied)
        #expect(harness.sleeper.recorded.prefix(2) == [5000, 30000])
        #expect(harness.sleeper.recorded.count == 3)
    }

    @Test func transportErrorsAreNotRetriedAndRedirectsAreNotFollowed() async throws {
        let harness = SyncHarness()
        let url = URL(string: "https://cdn.test/app/manifest.json")!
        harness.fetcher.enqueue(url.absoluteString, .failure(FetchError(.transport, "connection refused")))
        let error = await #expect(throws: SyncError.self) { try await harness.sync(url) }
        #expect(error?.code == .network)
        #expect(harness.fetcher.requests.count == 1)
        harness.fetcher.enqueue(
            url.absoluteString, .response(HTTPResponse(statusCode: 302, headers: ["Location": "https://evil.test/m.json"])))
        let redirect = await #expect(throws: SyncError.self) { try await harness.sync(url) }
        #expect(redirect?.code == .network)
        #expect(redirect?.httpStatus == 302)
        #expect(harness.fetcher.requests.count == 2)
        let missing = await #expect(throws: SyncError.self) { try await harness.sync(url) }
        #expect(missing?.httpStatus == 404)
    }

    @Test func tokenGoesOnlyToTheManifestOriginAndIsRefreshedOnceOn401() async throws {
        let harness = SyncHarness()
        var builder = ManifestBuilder()
        builder.addSequence("local", version: 1, on: harness.fetcher)
        builder.add(
            sequenceDocument("cdn", version: 1), name: "cdn", version: 1, url: "https://other-cdn.test/x/cdn.json",
            on: harness.fetcher)
        builder.serve(on: harness.fetcher)
        harness.fetcher.enqueue(builder.manifestURL.absoluteString, .response(HTTPResponse(statusCode: 401)))
        let tokens = TestTokenProvider()
        let result = try await harness.sync(builder.manifestURL, token: tokens)
        #expect(result.outcomes == ["installed", "installed"])
        #expect(tokens.currentCalls == 1, "read once per sync")
        #expect(tokens.refreshCalls == 1)
        let requests = harness.fetcher.requests
        #expect(requests.first?.headers["authorization"] == "Bearer t1")
        for request in requests.dropFirst() {
            if request.url.host == "cdn.test" {
                #expect(request.headers["authorization"] == "Bearer t2")
            } else {
                #expect(request.headers["authorization"] == nil, "\(request.url)")
            }
        }
    }

    @Test func unauthorizedAfterRefreshOrWhenTheProviderFails() async throws {
        let harness = SyncHarness()
        let url = URL(string: "https://cdn.test/app/manifest.json")!
        harness.fetcher.serve(url.absoluteString, body: [], statusCode: 401)
        let tokens = TestTokenProvider()
        let error = await #expect(throws: SyncError.self) { try await harness.sync(url, token: tokens) }
        #expect(error?.code == .unauthorized)
        #expect(tokens.refreshCalls == 1)
        #expect(harness.fetcher.requests.count == 2)
        let noProvider = await #expect(throws: SyncError.self) { try await harness.sync(url) }
        #expect(noProvider?.code == .unauthorized)
        #expect(harness.fetcher.requests.last?.headers["authorization"] == nil)
        let failing = await #expect(throws: SyncError.self) { try await harness.sync(url, token: TestTokenProvider(fails: true)) }
        #expect(failing?.code == .unauthorized)
    }

    @Test func concurrentSyncsAreSerialised() async throws {
        let fetcher = CountingFetcher(InMemoryManifestFetcher())
        let installer = InMemorySequenceInstaller(handlers: ["h"])
        let synchronizer = ManifestSynchronizer(
            installer: installer, configuration: ManifestSyncConfiguration(rootKeys: TestKeys.roots), fetcher: fetcher,
            clock: VirtualClock(start: 1_767_225_600_000), randomSeed: 1, sleep: { _ in })
        var builder = ManifestBuilder()
        for i in 0..<3 { builder.addSequence("flow\(i)", version: 1, on: fetcher.inner) }
        builder.serve(on: fetcher.inner)
        let url = builder.manifestURL
        let results = try await withThrowingTaskGroup(of: SyncResult.Status.self) { group in
            for _ in 0..<4 { group.addTask { try await synchronizer.sync(manifestURL: url).status } }
            var statuses: [SyncResult.Status] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(results.filter { $0 == .applied }.count == 1)
        #expect(results.filter { $0 == .notModified }.count == 3)
        #expect(fetcher.maxConcurrent == 1)
        #expect(await installer.keys.count == 3)
    }
}

/// Wraps a fetcher and records the most requests ever in flight at once.
final class CountingFetcher: ManifestFetcher {
    let inner: InMemoryManifestFetcher
    private let counts = Mutex<(now: Int, max: Int)>((0, 0))
    init(_ inner: InMemoryManifestFetcher) { self.inner = inner }
    var maxConcurrent: Int { counts.withLock { $0.max } }
    func fetch(_ request: HTTPRequest) async throws(FetchError) -> HTTPResponse {
        counts.withLock {
            $0.now += 1
            $0.max = max($0.max, $0.now)
        }
        for _ in 0..<20 { await Task.yield() }
        defer { counts.withLock { $0.now -= 1 } }
        return try await inner.fetch(request)
    }
}

import CSodiumRaw
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Stepwise
import StepwiseServer
import Synchronization

/// The sync benchmarks (issue "signed manifest sync", item 7), each beside its baseline measured
/// in the same run: verifying a manifest of 50 sequences of 10 KB against libsodium's raw verify
/// rate, and one channel round trip with 100 status updates against the local reference server
/// against a bare HTTP POST of the same bytes.
enum SyncBenchmarks {
    static let sequenceCount = 50
    static let rounds = 40

    /// A valid sequence document of about `bytes` bytes (padding lives in a `metadata` string).
    static func document(name: String, bytes: Int) -> [UInt8] {
        let head = #"{"name":"\#(name)","version":1,"blocks":[{"type":"step","id":"s","handler":"h"}],"metadata":{"notes":""#
        let tail = #""}}"#
        let padding = String(repeating: "x", count: max(0, bytes - head.utf8.count - tail.utf8.count))
        return Array((head + padding + tail).utf8)
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    // MARK: Manifest verification

    /// Median time to verify the whole manifest the way a device does (M1–M8, then E1–E12 for
    /// every entry: hashes, signatures, validation), and to verify signatures and hashes only,
    /// beside 51 raw `crypto_sign_verify_detached` calls on the same bytes.
    static func manifestVerification() async throws -> [EngineBenchmarks.Figure] {
        let root = try Ed25519PrivateKey(seed: SHA256.digest(of: Array("benchmark-root".utf8)))
        let inputs = (0..<sequenceCount).map { i in
            ManifestPublisher.Input(label: "s\(i).json", bytes: document(name: "bench-\(i)", bytes: 10_240))
        }
        let output = try ManifestPublisher.publish(
            sequences: inputs, previousManifest: nil,
            options: .init(rootKey: root, rootKeyID: "root", now: 1_767_225_600_000))
        let base = "https://cdn.bench/app/"
        let fetcher = InMemoryManifestFetcher()
        fetcher.serve(base + "manifest.json", body: output.manifestFile)
        for artifact in output.artifacts { fetcher.serve(base + artifact.path, body: artifact.bytes) }
        let rootKeys = ManifestRootKeys([root.publicKey])
        let manifestURL = URL(string: base + "manifest.json")!

        // Whole verification, as `sync` and `verify-manifest` run it (no installation).
        var whole: [Double] = []
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            let report = try await ManifestInspector.inspect(
                manifestURL: manifestURL, rootKeys: rootKeys, fetcher: fetcher, now: 1_767_225_600_000)
            whole.append(milliseconds(ContinuousClock.now - start))
            guard report.entries.count == sequenceCount, report.entries.allSatisfy({ $0.outcome == .verified }) else {
                throw FixtureError(description: "the benchmark manifest did not verify")
            }
        }

        // Signatures and hashes only: the manifest signature, then per entry SHA-256 and Ed25519.
        let sequences = output.artifacts.filter { $0.path.hasSuffix(".json") }.map(\.bytes)
        let signatures = output.entries.map { entry -> [UInt8] in
            let sig = output.artifacts.first { $0.path == "sequences/\(entry.sha256).sig" }!.bytes
            return Base64.decode(String(decoding: sig, as: UTF8.self))!
        }
        let ordered = output.entries.map { entry in
            output.artifacts.first { $0.path == "sequences/\(entry.sha256).json" }!.bytes
        }
        let verifier = ManifestVerifier(rootKeys: rootKeys)
        var cryptoOnly: [Double] = []
        for _ in 0..<rounds * 5 {
            let start = ContinuousClock.now
            let verified = try verifier.verify(output.manifestFile, now: 1_767_225_600_000)
            var ok = !verified.trustedKeys.isEmpty
            for (i, bytes) in ordered.enumerated() {
                ok = ok && SHA256.hexDigest(of: bytes) == output.entries[i].sha256
                ok = ok && rootKeys.verifies(signatures[i], over: bytes)
            }
            cryptoOnly.append(milliseconds(ContinuousClock.now - start))
            guard ok else { throw FixtureError(description: "a signature or hash did not verify") }
        }

        // Baseline: libsodium itself, 51 detached verifications of the same messages.
        let body = output.body
        let manifestSignature = Base64.decode(
            String(decoding: output.manifestFile.prefix { $0 != 0x0A }, as: UTF8.self))!
        let publicKey = root.publicKey.rawRepresentation
        precondition(sodium_init() >= 0)
        var raw: [Double] = []
        for _ in 0..<rounds * 5 {
            let start = ContinuousClock.now
            var failures: Int32 = 0
            failures |= crypto_sign_verify_detached(manifestSignature, body, UInt64(body.count), publicKey)
            for (i, bytes) in ordered.enumerated() {
                failures |= crypto_sign_verify_detached(signatures[i], bytes, UInt64(bytes.count), publicKey)
            }
            raw.append(milliseconds(ContinuousClock.now - start))
            guard failures == 0 else { throw FixtureError(description: "libsodium rejected a signature") }
        }
        _ = sequences
        let rawMedian = median(raw)
        let verifiesPerSecond = Double(sequenceCount + 1) / (rawMedian / 1000)
        return [
            .init(
                name: "sync/verify-manifest-50x10KB (M1–M8, E1–E12)",
                value: String(format: "%.2f ms", median(whole)),
                baseline: String(format: "libsodium raw: 51 verifies in %.2f ms (%.0f verifies/s)", rawMedian, verifiesPerSecond),
                target: "report", met: nil),
            .init(
                name: "sync/verify-manifest-50x10KB signatures+hashes",
                value: String(format: "%.2f ms (%.2fx raw)", median(cryptoOnly), median(cryptoOnly) / rawMedian),
                baseline: String(format: "libsodium raw: %.2f ms", rawMedian), target: "report", met: nil),
        ]
    }

    // MARK: Channel round trip

    /// Median time of one `syncChannel()` round trip carrying 100 status updates to an in-process
    /// reference server on loopback, beside a bare `URLSession` POST of an equally large body.
    static func channelRoundTrip() async throws -> [EngineBenchmarks.Figure] {
        let serverPath = EngineBenchmarks.temporaryPath()
        let devicePath = EngineBenchmarks.temporaryPath()
        defer {
            EngineBenchmarks.remove(serverPath)
            EngineBenchmarks.remove(devicePath)
        }
        let apiKey = "bench-key-0001"
        let store = try SQLiteSyncServerStore(path: serverPath)
        try await store.addAPIKey(apiKey, grant: .tenant(.defaultTenant), now: Int64(Date().timeIntervalSince1970 * 1000))
        let server = SyncServer(store: store)
        let bound = Mutex<Int?>(nil)
        let serverTask = Task { try await server.run(host: "127.0.0.1", port: 0) { port in bound.withLock { $0 = port } } }
        defer { serverTask.cancel() }
        var port: Int?
        for _ in 0..<500 where port == nil {
            try await Task.sleep(for: .milliseconds(10))
            port = bound.withLock { $0 }
        }
        guard let port else { throw FixtureError(description: "the server did not start") }

        var configuration = EngineConfiguration()
        configuration.syncUrl = "http://127.0.0.1:\(port)/mobile/sync"
        configuration.syncApiKey = apiKey
        configuration.deviceId = "bench-device"
        configuration.allowInsecureLocalhost = true
        configuration.maxConcurrentInstances = 1_000
        configuration.maxConcurrentSteps = 64
        let engine = try StepwiseEngine(databasePath: devicePath, configuration: configuration)
        await engine.registerHandler("h") { _ in .null }
        _ = try await engine.loadSequence(
            json: Array(#"{"name":"tiny","version":1,"blocks":[{"type":"step","id":"s","handler":"h"}]}"#.utf8))
        guard try await engine.syncChannel().succeeded else { throw FixtureError(description: "registration failed") }

        var roundTrips: [Double] = []
        var requestBytes = 0
        for _ in 0..<10 {
            for _ in 0..<100 { _ = try await engine.start("tiny") }
            _ = try await engine.runUntilIdle(maxTicks: 1_000, timeBudgetMs: 60_000)
            requestBytes = try await JSONWriter.bytes(
                engine.draftSyncRequest(deviceID: "bench-device").body).count
            let start = ContinuousClock.now
            let result = try await engine.syncChannel()
            roundTrips.append(milliseconds(ContinuousClock.now - start))
            guard result.succeeded, result.rowsDelivered >= 100 else {
                throw FixtureError(description: "round trip failed: \(result.error ?? "?") (\(result.rowsDelivered) rows)")
            }
        }
        await engine.shutdown()

        // Baseline: the same number of bytes POSTed to the same server, answered 404 by the
        // router (no engine, no store work): the transport's floor.
        var bare: [Double] = []
        let body = Data(repeating: 0x20, count: requestBytes)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/bench-floor")!)
        request.httpMethod = "POST"
        request.setValue(apiKey, forHTTPHeaderField: "x-api-key")
        for _ in 0..<30 {
            let start = ContinuousClock.now
            _ = try await URLSession.shared.upload(for: request, from: body)
            bare.append(milliseconds(ContinuousClock.now - start))
        }
        return [
            .init(
                name: "sync/channel-round-trip-100-status",
                value: String(format: "%.2f ms (request %d KB)", median(roundTrips), requestBytes / 1024),
                baseline: String(format: "bare POST of %d KB: %.2f ms", requestBytes / 1024, median(bare)),
                target: "report", met: nil),
        ]
    }

    static func run() async throws -> [EngineBenchmarks.Figure] {
        try await manifestVerification() + channelRoundTrip()
    }

    static func printTable(_ figures: [EngineBenchmarks.Figure]) {
        print("\nSync (release build)")
        for f in figures {
            print("  \(f.name.padding(toLength: 48, withPad: " ", startingAt: 0)) \(f.value.padding(toLength: 26, withPad: " ", startingAt: 0)) baseline: \(f.baseline)")
        }
    }
}

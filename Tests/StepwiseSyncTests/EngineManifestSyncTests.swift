import Foundation
import Stepwise
import Testing

/// Signed-manifest sync through the engine's public API (SYNC.md §3, SEMANTICS §6.5): the real
/// SQLite store, versions pinned, retirement and eviction against running instances.
@Suite("Manifest sync through the engine (SYNC.md §3.7–3.8)")
struct EngineManifestSyncTests {
    final class Database: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString).db").path
        deinit { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
    }

    static let waiting = #"""
        {"name": "flow", "version": 1, "blocks": [
          {"type": "step", "id": "ask", "handler": "h", "wait_for_input": {"prompt": "Go?"}},
          {"type": "step", "id": "done", "handler": "h"}
        ]}
        """#

    func makeEngine(
        _ database: Database, root: String = TestKeys.root.publicKey.base64, maxStoredSequences: UInt32 = 50
    ) async throws -> StepwiseEngine {
        var configuration = EngineConfiguration()
        configuration.rootPublicKey = root
        configuration.maxStoredSequences = maxStoredSequences
        let engine = try StepwiseEngine(store: try SQLiteExecutionStore(path: database.path), configuration: configuration)
        await engine.registerHandler("h") { _ in .object(JSONObject()) }
        return engine
    }

    /// Syncs a manifest listing `flow` v1 (manifest_version 1000) and starts an instance of it,
    /// run until it waits.
    func installFlowAndStartOne(_ engine: StepwiseEngine, fetcher: InMemoryManifestFetcher) async throws -> InstanceID {
        var manifest = ManifestBuilder()
        manifest.add(Array(Self.waiting.utf8), name: "flow", version: 1, on: fetcher)
        manifest.serve(on: fetcher)
        _ = try await engine.sync(manifestURL: manifest.manifestURL, fetcher: fetcher)
        let id = try await engine.start("flow")
        #expect(try await runUntil(engine, id) { $0 == .waiting } == .waiting)
        return id
    }

    /// Syncs manifest_version 2000, which removes `flow`.
    func retireFlow(_ engine: StepwiseEngine, fetcher: InMemoryManifestFetcher) async throws -> SyncResult {
        var next = ManifestBuilder()
        next.manifestVersion = 2_000
        next.removed = [["name": "flow", "removed_at": "2030-01-01T00:00:00Z"]]
        next.serve(on: fetcher)
        return try await engine.sync(manifestURL: next.manifestURL, fetcher: fetcher)
    }

    /// `flow` at `version` (the same steps).
    static func flow(version: Int) -> [UInt8] {
        Array(waiting.replacingOccurrences(of: #""version": 1"#, with: #""version": \#(version)"#).utf8)
    }

    @Test func installsSignedSequencesThatCanBeStarted() async throws {
        let database = Database()
        let engine = try await makeEngine(database)
        let fetcher = InMemoryManifestFetcher()
        var manifest = ManifestBuilder()
        manifest.addSequence("greet", version: 1, on: fetcher)
        manifest.add(Array(Self.waiting.utf8), name: "flow", version: 1, on: fetcher)
        manifest.serve(on: fetcher)

        let result = try await engine.sync(manifestURL: manifest.manifestURL, fetcher: fetcher)
        #expect(result.status == .applied && result.added == 2 && result.signatureFailures == 0)
        let telemetry = try await engine.pendingTelemetry().events
        let applied = try #require(telemetry.first { $0["event_type"] == "manifest_applied" })
        #expect(applied["payload"] == #"{"manifest_version":1000,"added":2,"updated":0,"removed":0,"skipped":0,"signature_failures":0}"#)
        let stored = await engine.loadedSequences()
        #expect(stored.map(\.key.description) == ["flow v1", "greet v1"])
        #expect(stored.allSatisfy { $0.origin == "manifest" && !$0.isRetired })
        let id = try await engine.start("greet")
        #expect(try await runUntilTerminal(engine, id) == .completed)

        // The same manifest again: nothing to do; the state survived in SQLite.
        await engine.shutdown()
        let reopened = try await makeEngine(database)
        let again = try await reopened.sync(manifestURL: manifest.manifestURL, fetcher: fetcher)
        #expect(again.status == .notModified && again.manifestVersion == 1_000 && again.entries.isEmpty)
        await reopened.shutdown()
    }

    @Test func aTamperedSequenceIsRejectedWhileTheRestApplies() async throws {
        let database = Database()
        let engine = try await makeEngine(database)
        let fetcher = InMemoryManifestFetcher()
        var manifest = ManifestBuilder()
        manifest.addSequence("good", version: 1, on: fetcher)
        let url = manifest.addSequence("evil", version: 1, on: fetcher)
        fetcher.serve(url, body: sequenceDocument("evil", version: 1, handlers: ["h", "h"]))
        manifest.serve(on: fetcher)

        let result = try await engine.sync(manifestURL: manifest.manifestURL, fetcher: fetcher)
        #expect(result.outcomeByEntry == ["good v1": .installed, "evil v1": .hashMismatch])
        #expect(await engine.loadedSequences().map(\.key.name) == ["good"])
        await #expect(throws: StepwiseError.self) { try await engine.start("evil") }
        await engine.shutdown()
    }

    @Test func removalRetiresWithoutTouchingRunningInstances() async throws {
        let database = Database()
        let engine = try await makeEngine(database)
        let fetcher = InMemoryManifestFetcher()
        let running = try await installFlowAndStartOne(engine, fetcher: fetcher)

        let result = try await retireFlow(engine, fetcher: fetcher)
        #expect(result.status == .applied && result.removed == 1)
        #expect(await engine.loadedSequences().map(\.isRetired) == [true], "still listed: a running instance pins it")
        do {
            _ = try await engine.start("flow")
            Issue.record("a retired sequence started")
        } catch {
            #expect(error.code == .notFound && error.message == "sequence 'flow' was removed by the publisher")
        }

        // The running instance finishes on its pinned version; then the version is gone.
        try await engine.completeStep(instanceId: running, stepId: "ask", output: ["value": "yes"])
        #expect(try await runUntilTerminal(engine, running) == .completed)
        #expect(await engine.loadedSequences().isEmpty)
        #expect(try await engine.stepRuns(instanceId: running).count == 2, "its history is kept")

        // Reopening keeps it out of the catalog.
        await engine.shutdown()
        let reopened = try await makeEngine(database)
        #expect(await reopened.loadedSequences().isEmpty)
        #expect(try await reopened.instance(running).state == .completed)
        await reopened.shutdown()
    }

    @Test func aFailedInstanceOfARetiredVersionCanBeRedriven() async throws {
        let database = Database()
        let engine = try await makeEngine(database)
        let fetcher = InMemoryManifestFetcher()
        let id = try await installFlowAndStartOne(engine, fetcher: fetcher)
        _ = try await retireFlow(engine, fetcher: fetcher)

        await engine.registerHandler("h") { _ in throw StepError.permanent("down") }
        try await engine.completeStep(instanceId: id, stepId: "ask", output: ["value": "yes"])
        #expect(try await runUntilTerminal(engine, id) == .failed)
        #expect(await engine.loadedSequences().isEmpty, "retired, and no unfinished instance pins it")

        // Its version is still stored (SEMANTICS §6.8 "its version is stored"): redrive runs it.
        await engine.registerHandler("h") { _ in .object(JSONObject()) }
        let letter = try #require(try await engine.deadLetters().items.first)
        try await engine.redrive(deadLetterId: letter.id)
        #expect(try await runUntilTerminal(engine, id) == .completed)
        await engine.shutdown()
    }

    @Test func anUpdateNeverChangesThePinnedVersion() async throws {
        let database = Database()
        let engine = try await makeEngine(database)
        let fetcher = InMemoryManifestFetcher()
        let old = try await installFlowAndStartOne(engine, fetcher: fetcher)

        var next = ManifestBuilder()
        next.manifestVersion = 2_000
        next.add(Self.flow(version: 2), name: "flow", version: 2, on: fetcher)
        next.serve(on: fetcher)
        let result = try await engine.sync(manifestURL: next.manifestURL, fetcher: fetcher)
        #expect(result.outcomeByEntry == ["flow v2": .updated])
        let new = try await engine.start("flow")
        #expect(try await engine.instance(new).sequenceVersion == 2)
        #expect(try await engine.instance(old).sequenceVersion == 1)
        #expect(try await engine.instance(old).state == .waiting)
        await engine.shutdown()
    }

    @Test func evictionNeverTouchesAVersionInUse() async throws {
        let database = Database()
        let engine = try await makeEngine(database, maxStoredSequences: 2)
        let fetcher = InMemoryManifestFetcher()
        let pinned = try await installFlowAndStartOne(engine, fetcher: fetcher)

        var next = ManifestBuilder()
        next.manifestVersion = 2_000
        for version in 2...3 { next.add(Self.flow(version: version), name: "flow", version: version, on: fetcher) }
        next.serve(on: fetcher)
        let result = try await engine.sync(manifestURL: next.manifestURL, fetcher: fetcher)
        // v1 is pinned, v2 is superseded by v3 only once v3 is stored: room for v2, none for v3.
        #expect(result.outcomeByEntry == ["flow v2": .updated, "flow v3": .storageLimit])
        #expect(await engine.loadedSequences().map(\.key.version) == [1, 2])

        // The pinned instance finishes: v1 becomes evictable and the retry installs v3.
        try await engine.completeStep(instanceId: pinned, stepId: "ask", output: ["value": "ok"])
        #expect(try await runUntilTerminal(engine, pinned) == .completed)
        let retried = try await engine.sync(manifestURL: next.manifestURL, fetcher: fetcher)
        #expect(retried.status == .notModified && retried.outcomeByEntry == ["flow v3": .updated])
        #expect(await engine.loadedSequences().map(\.key.version) == [2, 3])
        await engine.shutdown()
    }

    @Test func withoutARootKeySyncThrowsSyncNotConfigured() async throws {
        let database = Database()
        let engine = try await makeEngine(database, root: "")
        do {
            _ = try await engine.sync(manifestURL: URL(string: "https://cdn.test/app/manifest.json")!, fetcher: InMemoryManifestFetcher())
            Issue.record("sync without a root key succeeded")
        } catch {
            #expect(error.code == .syncNotConfigured)
        }
        await engine.shutdown()
    }

    @Test func aManifestSignedByAnotherRootChangesNothing() async throws {
        let database = Database()
        let engine = try await makeEngine(database)
        let fetcher = InMemoryManifestFetcher()
        var manifest = ManifestBuilder()
        manifest.addSequence("greet", version: 1, on: fetcher)
        manifest.serve(on: fetcher, signedBy: TestKeys.untrusted)
        do {
            _ = try await engine.sync(manifestURL: manifest.manifestURL, fetcher: fetcher)
            Issue.record("an untrusted manifest was applied")
        } catch {
            #expect(error.code == .manifestRejected && error.context["reason"] == "manifest_signature_invalid")
        }
        #expect(await engine.loadedSequences().isEmpty)
        await engine.shutdown()
    }

    @Test func concurrentSyncsRunOneAtATime() async throws {
        let database = Database()
        let engine = try await makeEngine(database)
        let fetcher = InMemoryManifestFetcher()
        var manifest = ManifestBuilder()
        for i in 0..<5 { manifest.addSequence("s\(i)", version: 1, on: fetcher) }
        manifest.serve(on: fetcher)
        let url = manifest.manifestURL
        let statuses = try await withThrowingTaskGroup(of: SyncResult.Status.self) { group in
            for _ in 0..<4 {
                group.addTask { try await engine.sync(manifestURL: url, fetcher: fetcher).status }
            }
            return try await group.reduce(into: [SyncResult.Status]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == .applied }.count == 1 && statuses.filter { $0 == .notModified }.count == 3)
        #expect(await engine.loadedSequences().count == 5)
        await engine.shutdown()
    }
}

extension SyncResult {
    /// `"<name> v<version>": outcome` for every entry processed.
    fileprivate var outcomeByEntry: [String: EntryOutcome] {
        Dictionary(entries.map { ("\($0.name) v\($0.version.map(String.init) ?? "?")", $0.outcome) }, uniquingKeysWith: { $1 })
    }
}

import Foundation
import StepwiseCrypto
import StepwiseExecution
import StepwiseJSON
import StepwiseSync
import Testing

@Suite("ManifestSynchronizer: entries, removals, eviction, rotation")
struct ManifestApplyTests {
    let flow1 = SequenceKey(name: "flow", version: 1)
    let flow2 = SequenceKey(name: "flow", version: 2)

    @Test func everyOutcomeIsReportedAndOneFailureNeverStopsTheOthers() async throws {
        let harness = SyncHarness()
        _ = try await harness.installer.loadLocal(sequenceDocument("conflict", version: 1, handlers: ["h"], extra: #","deprecated":false"#))
        _ = try await harness.installer.loadLocal(sequenceDocument("same", version: 1))
        _ = try await harness.installer.loadLocal(sequenceDocument("higher", version: 5))
        var b = ManifestBuilder()
        b.entries.append(["name": "broken"])                                                       // invalid_entry
        b.add(sequenceDocument("sdk", version: 1), name: "sdk", version: 1, minSDK: "9.0", on: harness.fetcher)
        b.add(sequenceDocument("handlers", version: 1), name: "handlers", version: 1, handlers: ["nope"], on: harness.fetcher)
        b.addSequence("same", version: 1, on: harness.fetcher)                                      // up_to_date
        b.addSequence("conflict", version: 1, on: harness.fetcher)                                  // version_conflict
        b.addSequence("higher", version: 2, on: harness.fetcher)                                    // superseded
        b.add(sequenceDocument("insecure", version: 1), name: "insecure", version: 1, url: "http://cdn.test/i.json", on: harness.fetcher)
        let missing = b.addSequence("missing", version: 1, on: harness.fetcher)
        harness.fetcher.remove(missing)                                                             // download_failed
        let altered = b.addSequence("altered", version: 1, on: harness.fetcher)
        harness.fetcher.serve(altered, body: sequenceDocument("altered", version: 1, handlers: ["x"]))  // hash_mismatch
        b.addSequence("unknownkey", version: 1, keyID: "nobody", on: harness.fetcher)               // unknown_signing_key
        let nosig = b.addSequence("nosig", version: 1, on: harness.fetcher)
        harness.fetcher.remove(String(nosig.dropLast(5)) + ".sig")                                  // signature_download_failed
        let badsig = b.addSequence("badsig", version: 1, on: harness.fetcher)
        harness.fetcher.serve(String(badsig.dropLast(5)) + ".sig", body: Array("!!".utf8))          // signature_malformed
        b.addSequence("forged", version: 1, signer: TestKeys.untrusted, on: harness.fetcher)        // signature_invalid
        b.add(sequenceDocument("renamed", version: 1), name: "other-name", version: 1, on: harness.fetcher)  // invalid_sequence
        b.addSequence("new", version: 1, on: harness.fetcher)                                       // installed
        b.serve(on: harness.fetcher)
        let result = try await harness.sync(b.manifestURL)
        #expect(result.status == .applied)
        #expect(result.outcomes == [
            "invalid_entry", "skipped_sdk_version", "skipped_missing_handlers", "up_to_date", "version_conflict",
            "superseded", "invalid_entry", "download_failed", "hash_mismatch", "unknown_signing_key",
            "signature_download_failed", "signature_malformed", "signature_invalid", "invalid_sequence", "installed",
        ])
        #expect(result.counts == [1, 0, 0, 8, 6])
        #expect(result.entries.filter(\.retryPending).map(\.name) == [
            "sdk", "handlers", "missing", "altered", "nosig", "badsig", "forged",
        ])
        #expect(result.entries.allSatisfy { $0.outcome.isSuccess || $0.message != nil })
        let state = try #require(await harness.installer.state)
        #expect(state.entries.map(\.outcome) == result.entries.map(\.outcome))
        // The next sync retries exactly the retryable ones, from E2.
        let again = try await harness.sync(b.manifestURL)
        #expect(again.status == .notModified)
        #expect(again.entries.map(\.name) == ["sdk", "handlers", "missing", "altered", "nosig", "badsig", "forged"])
    }

    @Test func newVersionIsUpdatedAndOldVersionsStayPinned() async throws {
        let harness = SyncHarness()
        var b = ManifestBuilder()
        b.addSequence("flow", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        #expect(try await harness.sync(b.manifestURL).outcomes == ["installed"])
        await harness.installer.setReferenced([flow1])
        b.manifestVersion += 1
        b.entries = []
        b.addSequence("flow", version: 2, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        let result = try await harness.sync(b.manifestURL)
        #expect(result.outcomes == ["updated"])
        #expect(result.counts == [0, 1, 0, 0, 0])
        #expect(await harness.installer.keys == [flow1, flow2], "v1 stays for its running instance")
        // The same entry in a newer manifest is up to date.
        b.manifestVersion += 1
        b.serve(on: harness.fetcher)
        #expect(try await harness.sync(b.manifestURL).outcomes == ["up_to_date"])
    }

    @Test func removedRetiresVersionsInstalledBeforeRemovedAtOfAnyOrigin() async throws {
        let harness = SyncHarness()
        await harness.installer.advance(to: 1_000)
        _ = try await harness.installer.loadLocal(sequenceDocument("old", version: 1))         // installed at 1001
        var b = ManifestBuilder()
        b.addSequence("old", version: 2, on: harness.fetcher)
        b.addSequence("kept", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        _ = try await harness.sync(b.manifestURL)                                              // old v2 at 1002, kept at 1003
        await harness.installer.advance(to: 5_000)
        _ = try await harness.installer.loadLocal(sequenceDocument("old", version: 3))         // after removed_at: untouched
        await harness.installer.setReferenced([SequenceKey(name: "old", version: 2)])
        b.manifestVersion += 1
        b.entries = []
        b.addSequence("kept", version: 1, on: harness.fetcher)
        // removed_at 1970-01-01T00:00:02Z = 2000 ms; "kept" is both listed and removed: not retired.
        b.removed = [
            ["name": "old", "removed_at": "1970-01-01T00:00:02Z"], ["name": "kept", "removed_at": "2030-01-01T00:00:00Z"],
        ]
        b.serve(on: harness.fetcher)
        let result = try await harness.sync(b.manifestURL)
        #expect(result.removed == 2)
        #expect(result.outcomes == ["up_to_date"])
        let keys = await harness.installer.keys
        #expect(keys.map(\.description) == ["kept v1", "old v2", "old v3"], "old v1 deleted at once; v2 retired but referenced")
        #expect(await harness.installer.metadata(SequenceKey(name: "old", version: 2))?.isRetired == true)
        #expect(await harness.installer.metadata(SequenceKey(name: "old", version: 3))?.isRetired == false)
        await harness.installer.finishInstances(of: SequenceKey(name: "old", version: 2))
        #expect(await harness.installer.keys.map(\.description) == ["kept v1", "old v3"])
        // Retiring again counts nothing.
        b.manifestVersion += 1
        b.serve(on: harness.fetcher)
        #expect(try await harness.sync(b.manifestURL).removed == 0)
    }

    @Test func absentManifestNamesAreRetiredButLocalOnesAreNot() async throws {
        let harness = SyncHarness()
        _ = try await harness.installer.loadLocal(sequenceDocument("local", version: 1))
        var b = ManifestBuilder()
        b.addSequence("a", version: 1, on: harness.fetcher)
        b.addSequence("b", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        _ = try await harness.sync(b.manifestURL)
        b.manifestVersion += 1
        b.entries = []
        b.addSequence("a", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        let result = try await harness.sync(b.manifestURL)
        #expect(result.removed == 1)
        #expect(await harness.installer.keys.map(\.name) == ["a", "local"])
        #expect(await harness.installer.log.contains("retire b v1"))
        // A not_modified sync never retires.
        await harness.installer.clearLog()
        _ = try await harness.sync(b.manifestURL)
        #expect(await harness.installer.log.isEmpty)
    }

    @Test func relistingARetiredVersionReinstatesIt() async throws {
        let harness = SyncHarness()
        var b = ManifestBuilder()
        b.addSequence("flow", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        _ = try await harness.sync(b.manifestURL)
        await harness.installer.setReferenced([flow1])
        let entries = b.entries
        b.manifestVersion += 1
        b.entries = []
        b.serve(on: harness.fetcher)
        #expect(try await harness.sync(b.manifestURL).removed == 1)
        #expect(await harness.installer.metadata(flow1)?.isRetired == true)
        b.manifestVersion += 1
        b.entries = entries
        b.serve(on: harness.fetcher)
        let result = try await harness.sync(b.manifestURL)
        #expect(result.outcomes == ["installed"])
        #expect(await harness.installer.metadata(flow1)?.isRetired == false)
    }

    @Test func evictionRemovesOnlyUnreferencedSupersededOrRetiredVersionsOldestFirst() async throws {
        let harness = SyncHarness(maxStoredSequences: 3)
        for v in 1...3 { _ = try await harness.installer.loadLocal(sequenceDocument("flow", version: v)) }
        await harness.installer.setReferenced([flow1])
        var b = ManifestBuilder()
        b.addSequence("new", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        let result = try await harness.sync(b.manifestURL)
        #expect(result.outcomes == ["installed"])
        #expect(await harness.installer.log.contains("evict flow v2"))
        #expect(await harness.installer.keys.map(\.description) == ["flow v1", "flow v3", "new v1"])
        // Full, and nothing evictable: every candidate is referenced or current.
        await harness.installer.setReferenced([flow1])
        b.manifestVersion += 1
        b.addSequence("another", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        let full = try await harness.sync(b.manifestURL)
        #expect(full.outcomes == ["up_to_date", "storage_limit"])
        #expect(full.entries.last?.retryPending == true)
        #expect(await harness.installer.keys.count == 3)
        // Once v1's instance finishes, the retry evicts it and installs.
        await harness.installer.finishInstances(of: flow1)
        let retry = try await harness.sync(b.manifestURL)
        #expect(retry.status == .notModified)
        #expect(retry.outcomes == ["installed"])
        #expect(await harness.installer.keys.map(\.description) == ["another v1", "flow v3", "new v1"])
    }

    @Test func evictionPlanIsPure() {
        func s(_ name: String, _ v: Int, at: Int64, retired: Bool = false) -> StoredSequence {
            StoredSequence(key: SequenceKey(name: name, version: v), isDeprecated: false, origin: "manifest", sha256: "", installedAt: at, isRetired: retired)
        }
        let stored = [s("a", 1, at: 5), s("a", 2, at: 1), s("a", 3, at: 9), s("b", 1, at: 2, retired: true), s("c", 1, at: 0)]
        #expect(ManifestSyncPlan.evictionCandidates(stored: stored).map(\.description) == ["a v2", "b v1", "a v1"])
        #expect(ManifestSyncPlan.evictions(stored: stored, referenced: [], limit: 0) == [])
        #expect(ManifestSyncPlan.evictions(stored: stored, referenced: [], limit: 6) == [])
        #expect(ManifestSyncPlan.evictions(stored: stored, referenced: [], limit: 5)?.map(\.description) == ["a v2"])
        #expect(
            ManifestSyncPlan.evictions(stored: stored, referenced: [SequenceKey(name: "b", version: 1)], limit: 4)?.map(\.description)
                == ["a v2", "a v1"])
        #expect(ManifestSyncPlan.evictions(stored: stored, referenced: [SequenceKey(name: "a", version: 1)], limit: 3) == nil)
    }

    @Test func signingKeyRotationAndRevocation() async throws {
        let harness = SyncHarness()
        var b = ManifestBuilder()
        b.addSequence("flow", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        _ = try await harness.sync(b.manifestURL)
        // Step 1: list old and new keys; sign the new version with the new key.
        b.manifestVersion += 1
        b.signingKeys.insert(("seq-2", TestKeys.newSequence.publicKey.base64), at: 1)
        b.entries = []
        b.addSequence("flow", version: 2, signer: TestKeys.newSequence, keyID: "seq-2", on: harness.fetcher)
        b.addSequence("other", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        #expect(try await harness.sync(b.manifestURL).outcomes == ["updated", "installed"])
        #expect(await harness.installer.state?.trustedKeys.map(\.keyID) == [TestKeys.sequenceID, "seq-2", TestKeys.rootID])
        // Step 2: drop the old key: anything still signed by it is refused at once.
        b.manifestVersion += 1
        b.signingKeys.removeFirst()
        b.entries = []
        b.addSequence("flow", version: 2, signer: TestKeys.newSequence, keyID: "seq-2", on: harness.fetcher)
        b.addSequence("late", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        let result = try await harness.sync(b.manifestURL)
        #expect(result.outcomes == ["up_to_date", "unknown_signing_key"])
        #expect(result.entries.last?.retryPending == false)
        #expect(await harness.installer.state?.trustedKeys.map(\.keyID) == ["seq-2", TestKeys.rootID])
        #expect(await harness.installer.keys.contains(SequenceKey(name: "other", version: 1)) == false, "absent: retired")
    }

    @Test func revokedKeyFailsPendingEntriesOfTheNewManifest() async throws {
        let harness = SyncHarness()
        var b = ManifestBuilder()
        let url = b.addSequence("flow", version: 1, on: harness.fetcher)
        harness.fetcher.enqueue(url, .response(HTTPResponse(statusCode: 500)))
        for _ in 0..<3 { harness.fetcher.enqueue(url, .response(HTTPResponse(statusCode: 500))) }
        b.serve(on: harness.fetcher)
        #expect(try await harness.sync(b.manifestURL).outcomes == ["download_failed"])
        b.manifestVersion += 1
        b.signingKeys = [(TestKeys.rootID, TestKeys.root.publicKey.base64)]
        b.serve(on: harness.fetcher)
        let result = try await harness.sync(b.manifestURL)
        #expect(result.outcomes == ["unknown_signing_key"])
        #expect(await harness.installer.state?.pendingEntries.isEmpty == true)
    }

    @Test func rootRotationAcceptsAnyConfiguredRoot() async throws {
        let roots = try ManifestRootKeys(
            rootPublicKey: TestKeys.root.publicKey.base64, additionalRootPublicKeys: [TestKeys.newRoot.publicKey.base64])
        let harness = SyncHarness(roots: roots)
        var b = ManifestBuilder()
        b.addSequence("flow", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher, signedBy: TestKeys.newRoot)
        #expect(try await harness.sync(b.manifestURL).status == .applied)
        b.manifestVersion += 1
        b.serve(on: harness.fetcher, signedBy: TestKeys.root)
        #expect(try await harness.sync(b.manifestURL).status == .applied)
    }

    @Test func sizeCapsOnSequencesAndSignatures() async throws {
        let harness = SyncHarness(maxSequenceSizeBytes: 200)
        var b = ManifestBuilder()
        let big = sequenceDocument("big", version: 1, handlers: Array(repeating: "h", count: 10))
        #expect(big.count > 200)
        b.add(big, name: "big", version: 1, on: harness.fetcher)
        let sigged = b.addSequence("bigsig", version: 1, on: harness.fetcher)
        harness.fetcher.serve(String(sigged.dropLast(5)) + ".sig", body: [UInt8](repeating: 0x41, count: 4097))
        b.serve(on: harness.fetcher)
        let result = try await harness.sync(b.manifestURL)
        #expect(result.outcomes == ["too_large", "signature_download_failed"])
        #expect(result.entries.map(\.retryPending) == [false, true])
        let caps = harness.fetcher.requests.map { ($0.url.pathExtension, $0.maxResponseBytes) }
        #expect(caps.contains { $0 == ("json", 200) })
        #expect(caps.contains { $0 == ("sig", 4096) })
    }

    @Test func relativeAndAbsoluteEntryURLsResolveAgainstTheManifestURL() async throws {
        let harness = SyncHarness()
        var b = ManifestBuilder(base: "https://cdn.test/tenant/app/")
        b.add(sequenceDocument("a", version: 1), name: "a", version: 1, url: "../shared/a.json", on: harness.fetcher)
        b.add(sequenceDocument("b", version: 1), name: "b", version: 1, url: "/tenant/sequences/b.json", on: harness.fetcher)
        b.add(sequenceDocument("c", version: 1), name: "c", version: 1, url: "https://static.test/c.json?v=1#frag", on: harness.fetcher)
        b.add(sequenceDocument("d", version: 1), name: "d", version: 1, url: "seq/d", on: harness.fetcher)
        harness.fetcher.serve("https://static.test/c.json?v=1", body: sequenceDocument("c", version: 1))
        harness.fetcher.serve("https://static.test/c.sig?v=1", body: Array(Base64.encode(TestKeys.sequence.signature(for: sequenceDocument("c", version: 1))).utf8))
        b.serve(on: harness.fetcher)
        let result = try await harness.sync(b.manifestURL)
        #expect(result.outcomes == ["installed", "installed", "installed", "installed"])
        let urls = Set(harness.fetcher.requests.map(\.url.absoluteString))
        #expect(urls.isSuperset(of: [
            "https://cdn.test/tenant/shared/a.json", "https://cdn.test/tenant/shared/a.sig",
            "https://cdn.test/tenant/sequences/b.json", "https://cdn.test/tenant/sequences/b.sig",
            "https://static.test/c.json?v=1", "https://static.test/c.sig?v=1",
            "https://cdn.test/tenant/app/seq/d", "https://cdn.test/tenant/app/seq/d.sig",
        ]))
    }

    @Test func storageErrorWhileInstallingThrowsAndKeepsTheRestPending() async throws {
        let harness = SyncHarness()
        var b = ManifestBuilder()
        for name in ["a", "b", "c"] { b.addSequence(name, version: 1, on: harness.fetcher) }
        b.serve(on: harness.fetcher)
        await harness.installer.setFailInstallsAfter(1)
        let error = await #expect(throws: SyncError.self) { try await harness.sync(b.manifestURL) }
        #expect(error?.code == .storage)
        #expect(await harness.installer.keys.map(\.name) == ["a"])
        let state = try #require(await harness.installer.state)
        #expect(state.entries.map(\.outcome) == [.installed, .pending, .pending])
        await harness.installer.setFailInstallsAfter(nil)
        let retry = try await harness.sync(b.manifestURL)
        #expect(retry.status == .notModified)
        #expect(retry.outcomes == ["installed", "installed"])
    }

    @Test func acceptanceFailureIsAStorageError() async throws {
        let harness = SyncHarness()
        var b = ManifestBuilder()
        b.addSequence("a", version: 1, on: harness.fetcher)
        b.serve(on: harness.fetcher)
        await harness.installer.setFailSaves(true)
        let error = await #expect(throws: SyncError.self) { try await harness.sync(b.manifestURL) }
        #expect(error?.code == .storage)
        #expect(await harness.installer.keys.isEmpty)
    }
}

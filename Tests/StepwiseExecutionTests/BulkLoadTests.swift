import Stepwise
import StepwiseCrypto
import Testing

@Suite("Loading an array of sequences all-or-nothing")
struct BulkLoadTests {
    @Test func allValidStoresAllAndProblemsPointIntoTheArray() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let engine = try await openEngine(db, clock: VirtualClock(), handlers: ["work": { _ in [:] }])
        let good = #"[{"name": "a", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "work"}]}, {"name": "b", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "work"}]}]"#
        #expect(try await engine.loadSequences(jsonArray: Array(good.utf8)) == 2)
        #expect(try await engine.loadSequences(jsonArray: Array(good.utf8)) == 0, "identical reloads are no-ops")
        let bad = #"[{"name": "c", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "work"}]}, {"name": "d", "version": 1, "blocks": [{"type": "step", "id": "s"}]}]"#
        let error = await #expect(throws: StepwiseError.self) { try await engine.loadSequences(jsonArray: Array(bad.utf8)) }
        #expect(error?.code == .sequenceInvalid)
        #expect(error?.message.contains("/1/blocks/0/handler: missing_field: missing field 'handler'") == true)
        #expect(await engine.loadedSequences().map(\.key.name) == ["a", "b"], "nothing of the invalid array is stored")
        let notArray = await #expect(throws: StepwiseError.self) { try await engine.loadSequences(jsonArray: Array("{}".utf8)) }
        #expect(notArray?.code == .invalidInput)
        await engine.shutdown()
    }

    /// The JSON depth limit (256) is a document's: an element as deep as the limit loads in an
    /// array (one level more) as it does alone.
    @Test func anElementAtTheDepthLimitLoadsInAnArray() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let engine = try await openEngine(db, clock: VirtualClock(), handlers: ["work": { _ in [:] }])
        // Sequence object, blocks, step, params: 4 levels, then arrays to 256.
        func document(_ name: String, depth: Int) -> String {
            let nest = String(repeating: "[", count: depth - 4) + String(repeating: "]", count: depth - 4)
            return #"{"name": "\#(name)", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "work", "params": {"deep": \#(nest)}}]}"#
        }
        #expect(try await engine.validate(json: Array(document("alone", depth: 256).utf8)).isEmpty)
        #expect(try await engine.loadSequences(jsonArray: Array("[\(document("deep", depth: 256))]".utf8)) == 1)
        let tooDeep = await #expect(throws: StepwiseError.self) {
            try await engine.loadSequences(jsonArray: Array("[\(document("deeper", depth: 257))]".utf8))
        }
        #expect(tooDeep?.code == .invalidInput)
        #expect(await engine.loadedSequences().map(\.key.name) == ["deep"])
        await engine.shutdown()
    }

    @Test func eachElementIsStoredWithItsOwnBytesAsWritten() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let engine = try await openEngine(db, clock: VirtualClock(), handlers: ["work": { _ in [:] }])
        let first = "{ \"name\" : \"a\", \"version\": 1,\n  \"blocks\": [{\"type\": \"step\", \"id\": \"s\", \"handler\": \"work\"}] }"
        let second = #"{"name":"b","version":1,"blocks":[{"type":"step","id":"s","handler":"work"}]}"#
        let array = "[\n  " + first + " ,\n\t" + second + "\n]"
        #expect(try await engine.loadSequences(jsonArray: Array(array.utf8)) == 2)
        let stored = await engine.loadedSequences()
        #expect(stored.map(\.sha256) == [SHA256.hexDigest(of: Array(first.utf8)), SHA256.hexDigest(of: Array(second.utf8))])
        // The same document loaded alone (its own bytes) is the stored version: a no-op.
        let again = try await engine.loadSequence(json: Array(first.utf8))
        #expect(again.isNew == false)
        await engine.shutdown()
    }

    @Test func loadingAnArrayEvictsLikeLoadingOne() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        var configuration = EngineConfiguration.forTests
        configuration.maxStoredSequences = 3
        let engine = try await openEngine(db, clock: VirtualClock(), configuration: configuration, handlers: ["work": { _ in [:] }])
        func flow(_ name: String, _ version: Int) -> String {
            #"{"name": "\#(name)", "version": \#(version), "blocks": [{"type": "step", "id": "s", "handler": "work"}]}"#
        }
        #expect(try await engine.loadSequences(jsonArray: Array("[\(flow("a", 1)), \(flow("b", 1)), \(flow("c", 1))]".utf8)) == 3)
        // a v2 and b v2 supersede a v1 and b v1, which make room.
        #expect(try await engine.loadSequences(jsonArray: Array("[\(flow("a", 2)), \(flow("b", 2))]".utf8)) == 2)
        #expect(await engine.loadedSequences().map { "\($0.key.name)@\($0.key.version)" } == ["a@2", "b@2", "c@1"])
        // Nothing superseded is left to evict: refused, nothing stored.
        let full = await #expect(throws: StepwiseError.self) {
            try await engine.loadSequences(jsonArray: Array("[\(flow("d", 1))]".utf8))
        }
        #expect(full?.code == .resourceLimit)
        #expect(await engine.loadedSequences().count == 3)
        // One document at a time, the incoming version supersedes too: c v2 makes room by evicting c v1.
        _ = try await engine.loadSequence(json: Array(flow("c", 2).utf8))
        #expect(await engine.loadedSequences().map { "\($0.key.name)@\($0.key.version)" } == ["a@2", "b@2", "c@2"])
        await engine.shutdown()
    }

    /// §1.2: a deprecated version is never the latest, so it supersedes nothing: below a
    /// deprecated v2, v1 is what `start` runs and is not evicted to make room.
    @Test func aVersionBelowADeprecatedOneIsNotSuperseded() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        var configuration = EngineConfiguration.forTests
        configuration.maxStoredSequences = 2
        let engine = try await openEngine(db, clock: VirtualClock(), configuration: configuration, handlers: ["work": { _ in [:] }])
        func flow(_ name: String, _ version: Int, deprecated: Bool = false) -> [UInt8] {
            Array(#"{"name": "\#(name)", "version": \#(version), "deprecated": \#(deprecated), "blocks": [{"type": "step", "id": "s", "handler": "work"}]}"#.utf8)
        }
        _ = try await engine.loadSequence(json: flow("v", 1))
        _ = try await engine.loadSequence(json: flow("v", 2, deprecated: true))
        let full = await #expect(throws: StepwiseError.self) { try await engine.loadSequence(json: flow("other", 1)) }
        #expect(full?.code == .resourceLimit)
        #expect(await engine.loadedSequences().map { "\($0.key.name)@\($0.key.version)" } == ["v@1", "v@2"])
        let started = try await engine.start("v")
        #expect(try await engine.instance(started).sequenceVersion == 1)
        await engine.shutdown()
    }

    /// Sequence names are JSON strings: canonically equivalent spellings are two sequences,
    /// and `start` finds the one named byte for byte.
    @Test func canonicallyEquivalentNamesAreDistinctSequences() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let engine = try await openEngine(db, clock: VirtualClock(), handlers: ["work": { _ in [:] }])
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        for (name, version) in [(composed, 1), (decomposed, 7)] {
            _ = try await engine.loadSequence(json: Array(#"{"name": "\#(name)", "version": \#(version), "blocks": [{"type": "step", "id": "s", "handler": "work"}]}"#.utf8))
        }
        #expect(await engine.loadedSequences().count == 2)
        let id = try await engine.start(decomposed)
        #expect(try await engine.instance(id).sequenceVersion == 7)
        await engine.shutdown()
    }
}

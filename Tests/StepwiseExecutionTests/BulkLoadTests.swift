import Stepwise
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
}

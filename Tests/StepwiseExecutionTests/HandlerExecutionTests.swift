import Foundation
import Stepwise
import Testing

/// Handler calls start on the engine's thread or on the shared pool, as configured; either way
/// the run loop finishes the instance and a handler may call back into the engine.
@Suite struct HandlerExecutionTests {
    @Test(arguments: [EngineConfiguration.HandlerExecution.engineThread, .sharedPool])
    func handlersRunAndMayCallTheEngine(_ execution: EngineConfiguration.HandlerExecution) async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        var configuration = EngineConfiguration()
        configuration.handlerExecution = execution
        let engine = try StepwiseEngine(databasePath: database.path, configuration: configuration)
        let box = EngineBox()
        await engine.registerHandler("look") { context in
            // Re-entering the engine from a handler must not wait on the thread the call holds.
            let state = try await box.engine?.instance(context.instanceId).state
            return ["state": .string(state?.rawValue ?? "none")]
        }
        box.engine = engine
        _ = try await engine.loadSequence(
            json: Array(#"{"name": "re", "version": 1, "blocks": [{"type": "step", "id": "a", "handler": "look"}, {"type": "step", "id": "b", "handler": "look"}]}"#.utf8))
        let id = try await engine.start("re")
        await engine.resume()
        #expect(await eventually { (try? await engine.instance(id).state) == .completed })
        let snapshot = try await engine.instance(id)
        #expect(snapshot.outputs["b"] == ["state": "running"])
        await engine.shutdown()
    }

    @Test func theSharedPoolIsTheDefault() {
        #expect(EngineConfiguration().handlerExecution == .sharedPool)
        #expect(EngineConfiguration.HandlerExecution(rawValue: "shared_pool") == .sharedPool)
    }
}

/// Lets a handler closure reach the engine it is registered on.
final class EngineBox: @unchecked Sendable {
    var engine: StepwiseEngine?
}

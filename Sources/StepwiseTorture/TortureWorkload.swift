import Foundation
import Stepwise

/// The mixed workload the torture harness crashes: every block type, retries, a permanent
/// failure caught by try/catch, waits answered by the driver, a sub-sequence, parallel and race
/// branches, on several instances at once.
public enum TortureWorkload {
    /// The parent sequence.
    public static let parent = #"""
        {"name": "torture", "version": 1, "blocks": [
          {"type": "step", "id": "begin", "handler": "t", "params": {"k": "{{ data.key }}"}},
          {"type": "parallel", "id": "par", "branches": [
            [{"type": "step", "id": "p1", "handler": "t"}],
            [{"type": "step", "id": "p2", "handler": "flaky", "retry": {"max_attempts": 2, "initial_backoff": 5, "max_backoff": 5}}]
          ]},
          {"type": "loop", "id": "lp", "condition": "outputs.lp._iterations < 2", "body": [{"type": "step", "id": "lb", "handler": "t"}]},
          {"type": "for_each", "id": "fe", "collection": "items", "body": [{"type": "step", "id": "fb", "handler": "t", "params": {"i": "{{ data.item }}"}}]},
          {"type": "router", "id": "rt", "routes": [{"condition": "data.key == 'k0'", "blocks": [{"type": "step", "id": "r0", "handler": "t"}]}],
           "default": [{"type": "step", "id": "r1", "handler": "t"}]},
          {"type": "try_catch", "id": "tc", "try_block": [{"type": "step", "id": "boom", "handler": "broken"}],
           "catch_block": [{"type": "step", "id": "caught", "handler": "t", "params": {"m": "{{ data._error.message }}"}}],
           "finally_block": [{"type": "step", "id": "fin", "handler": "t"}]},
          {"type": "sub_sequence", "id": "sub", "sequence_name": "torture-child", "input": {"from": "{{ data.key }}"}},
          {"type": "race", "id": "rc", "branches": [[{"type": "step", "id": "fast", "handler": "t"}], [{"type": "step", "id": "slow", "handler": "slow"}]]},
          {"type": "a_b_split", "id": "ab", "variants": [
            {"name": "a", "weight": 1, "blocks": [{"type": "step", "id": "va", "handler": "t"}]},
            {"name": "b", "weight": 1, "blocks": [{"type": "step", "id": "vb", "handler": "t"}]}]},
          {"type": "cancellation_scope", "id": "cs", "blocks": [{"type": "step", "id": "scoped", "handler": "t", "cancellable": false}]},
          {"type": "step", "id": "ask", "handler": "t", "wait_for_input": {"prompt": "Go?", "choices": [{"value": "yes"}, {"value": "no"}], "store_as": "answer"}},
          {"type": "step", "id": "done", "handler": "t", "params": {"a": "{{ data.answer }}"}}
        ]}
        """#

    /// The sub-sequence.
    public static let child = #"""
        {"name": "torture-child", "version": 1, "blocks": [
          {"type": "step", "id": "c1", "handler": "t", "params": {"from": "{{ data.from }}"}},
          {"type": "step", "id": "c2", "handler": "t"}
        ]}
        """#

    /// Instances started, by dedup key.
    public static let keys = ["k0", "k1", "k2", "k3"]

    /// Handlers: deterministic outputs so crash and crash-free runs can be compared.
    static func register(on engine: StepwiseEngine, log: @escaping @Sendable (StepContext) -> Void) async {
        await engine.registerHandler("t") { ctx in
            log(ctx)
            return ["step": .string(ctx.stepId), "attempt": .integer(Int64(ctx.attempt)), "params": ctx.params]
        }
        await engine.registerHandler("flaky") { ctx in
            log(ctx)
            if ctx.attempt < 2 { throw StepError.retryable("first attempt fails", code: "flaky") }
            return ["step": .string(ctx.stepId), "attempt": .integer(Int64(ctx.attempt))]
        }
        await engine.registerHandler("broken") { ctx in
            log(ctx)
            throw StepError.permanent("always broken", code: "broken")
        }
        await engine.registerHandler("slow") { ctx in
            log(ctx)
            try await Task.sleep(nanoseconds: 300_000_000)
            return ["step": .string(ctx.stepId)]
        }
    }

    /// Loads the sequences and starts the instances whose dedup key was never used (so a
    /// restarted run neither loses nor duplicates an instance).
    static func start(on engine: StepwiseEngine) async throws {
        _ = try await engine.loadSequence(json: Array(child.utf8))
        _ = try await engine.loadSequence(json: Array(parent.utf8))
        var used: Set<String> = []
        for summary in try await engine.instances(limit: 500).items where summary.parentInstanceId == nil {
            if let key = try await engine.instance(summary.instanceId).dedupKey { used.insert(key) }
        }
        for (index, key) in keys.enumerated() where !used.contains(key) {
            // Fixed ids: a_b_split hashes the instance id, so crash and reference runs must agree.
            let id = InstanceID(rawValue: "00000000-0000-4000-8000-\(String(repeating: "0", count: 11))\(index)")
            _ = try await engine.start(
                "torture", input: ["key": .string(key), "items": [1, 2]], dedupKey: key,
                options: StartOptions(instanceId: id))
        }
    }

    /// The configuration every torture run uses.
    static var configuration: EngineConfiguration {
        var c = EngineConfiguration()
        c.maxConcurrentSteps = 8
        c.syncUrl = "https://sync.invalid/mobile/sync"
        return c
    }
}

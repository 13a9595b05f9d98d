import Foundation
import Stepwise
import Synchronization
import Testing

/// `context.data` is capped at 4 MiB (SEMANTICS: payload limits). The engine keeps the data's
/// size up to date member by member (a step's check costs its output, not all the data before
/// it): these runs prove the figure it reports is the data's exact size, when members are added
/// and when a loop replaces one again and again.
@Suite struct DataSizeLimitTests {
    static let limit = 4 * 1_048_576

    /// About 0.85 MB of JSON text with characters that are escaped or take several bytes.
    static func bulky(_ seed: Int) -> JSONValue {
        .string(String(repeating: "ab\"c\\d\né\u{1F600}\u{0001}/\(seed)", count: 35_000))
    }

    func run(_ sequence: String, input: JSONObject) async throws -> InstanceSnapshot {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let engine = try StepwiseEngine(databasePath: database.path)
        let counter = CallCounter()
        await engine.registerHandler("big") { _ in Self.bulky(counter.next()) }
        _ = try await engine.loadSequence(json: Array(sequence.utf8))
        let id = try await engine.start("limits", input: .object(input))
        await engine.resume()
        #expect(await eventually { (try? await engine.instance(id).state.isTerminal) == true })
        let snapshot = try await engine.instance(id)
        await engine.shutdown()
        return snapshot
    }

    @Test func theStepThatPassesTheLimitFailsWithTheDataExactSize() async throws {
        let steps = (1...5).map { #"{"type": "step", "id": "s\#($0)", "handler": "big"}"# }.joined(separator: ",")
        let input: JSONObject = ["note": "é \"quoted\"\n", "n": 7]
        let snapshot = try await run(#"{"name": "limits", "version": 1, "blocks": [\#(steps)]}"#, input: input)
        #expect(snapshot.state == .failed)
        // Four outputs fit; the fifth would make the data this size.
        #expect(snapshot.data.count == 6)
        var expected = input
        for i in 1...4 { expected["s\(i)"] = Self.bulky(i) }
        #expect(snapshot.data.keys == expected.keys, "the refused member is not kept")
        let unchanged = snapshot.data == expected  // compared apart: a failure would print megabytes
        #expect(unchanged)
        expected["s5"] = Self.bulky(5)
        let size = try #require(JSONWriter.byteCount(.object(expected)))
        #expect(size > Self.limit)
        let message = try #require(snapshot.error?.message)
        #expect(message.contains("context.data would be \(size) bytes, more than the limit of \(Self.limit)"), "\(message)")
        #expect(snapshot.outputs["s5"] == nil)
    }

    /// SEMANTICS §1.7: an answer under 1 MiB whose write would pass the data limit is taken
    /// (completeStep succeeds) and fails its step, which a try_catch catches.
    @Test func anAnswerPastTheDataLimitFailsItsStepCatchably() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let engine = try StepwiseEngine(databasePath: database.path)
        await engine.registerHandler("h") { _ in .null }
        _ = try await engine.loadSequence(json: Array(#"""
            {"name": "limits", "version": 1, "blocks": [{"type": "try_catch", "id": "tc",
              "try_block": [{"type": "step", "id": "ask", "handler": "h", "wait_for_input": {"prompt": "?"}}],
              "catch_block": [{"type": "step", "id": "caught", "handler": "h"}]}]}
            """#.utf8))
        let input: JSONObject = ["a": Self.bulky(1), "b": Self.bulky(2), "c": Self.bulky(3), "d": Self.bulky(4)]
        let id = try await engine.start("limits", input: .object(input))
        await engine.resume()
        #expect(await eventually { (try? await engine.pendingWaits().count) == 1 })
        try await engine.completeStep(instanceId: id, stepId: "ask", output: ["value": Self.bulky(5)])
        #expect(await eventually { (try? await engine.instance(id).state.isTerminal) == true })
        let snapshot = try await engine.instance(id)
        #expect(snapshot.state == .completed)
        #expect(snapshot.data["ask"] == .null, "the handler's output stays; the answer was not written")
        #expect(snapshot.data["_error"]?["message"]?.stringValue?.contains("context.data would be") == true)
        #expect(snapshot.outputs["caught"] != nil)
        await engine.shutdown()
    }

    @Test func aLoopReplacingItsMemberCountsItOnce() async throws {
        // Six 0.85 MB outputs of the same step replace one another (5.1 MB if they were added
        // up); then four more steps pass the limit at the fourth.
        let after = (1...4).map { #"{"type": "step", "id": "x\#($0)", "handler": "big"}"# }.joined(separator: ",")
        let sequence = """
            {"name": "limits", "version": 1, "blocks": [
              {"id": "lp", "type": "loop", "condition": "outputs.lp._iterations < 6",
               "body": [{"id": "grow", "type": "step", "handler": "big"}]},
              \(after)
            ]}
            """
        let snapshot = try await run(sequence, input: [:])
        #expect(snapshot.state == .failed)
        let message = try #require(snapshot.error?.message)
        var data = snapshot.data
        #expect(data["x3"] != nil && data["x4"] == nil, "\(data.keys)")
        data["x4"] = Self.bulky(10)
        let size = try #require(JSONWriter.byteCount(.object(data)))
        #expect(message.contains("context.data would be \(size) bytes"), "\(message)")
    }

    /// Input whose data is `slack` bytes short of the limit: four bulky members and padding.
    static func nearlyFull(slack: Int) throws -> JSONObject {
        var input: JSONObject = ["a": bulky(1), "b": bulky(2), "c": bulky(3), "d": bulky(4), "pad": ""]
        let size = try #require(JSONWriter.byteCount(.object(input)))
        input["pad"] = .string(String(repeating: "p", count: limit - size - slack))
        #expect(JSONWriter.byteCount(.object(input)) == limit - slack)
        return input
    }

    /// Runs `blocks` (with a `big` handler, a failing `boom` one and a `mark` one that counts)
    /// on `input`; returns the snapshot and the `mark` calls.
    func runMarked(_ blocks: String, input: JSONObject, extra: [String] = []) async throws -> (InstanceSnapshot, Int) {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let engine = try StepwiseEngine(databasePath: database.path)
        let marks = CallCounter()
        await engine.registerHandler("mark") { _ in _ = marks.next(); return .null }
        await engine.registerHandler("boom") { _ in throw StepError.permanent("boom") }
        for document in extra { _ = try await engine.loadSequence(json: Array(document.utf8)) }
        _ = try await engine.loadSequence(json: Array(#"{"name": "limits", "version": 1, "blocks": [\#(blocks)]}"#.utf8))
        let id = try await engine.start("limits", input: .object(input))
        await engine.resume()
        #expect(await eventually { (try? await engine.instance(id).state.isTerminal) == true })
        let snapshot = try await engine.instance(id)
        await engine.shutdown()
        return (snapshot, marks.next() - 1)
    }

    /// SEMANTICS §1.7: a sequential for_each's binding is a write to context.data; past the
    /// limit it fails the for_each (catchably) before its body runs, and the binding is gone.
    @Test func aForEachBindingPastTheLimitFailsTheForEach() async throws {
        var input = try Self.nearlyFull(slack: 400)
        input["xs"] = .array([.string(String(repeating: "x", count: 200))])
        let (snapshot, marks) = try await runMarked(
            #"{"type": "try_catch", "id": "tc", "try_block": [{"type": "for_each", "id": "fe", "collection": "xs", "body": [{"type": "step", "id": "body", "handler": "mark"}]}], "catch_block": [{"type": "step", "id": "caught", "handler": "boom"}]}"#,
            input: input)
        #expect(marks == 0, "the body never ran")
        #expect(snapshot.state == .failed)
        #expect(snapshot.data["item"] == nil)
        #expect(snapshot.outputs["caught"] == nil, "catch ran and failed")
        #expect(snapshot.error?.message.contains("boom") == true, "\(snapshot.error?.message ?? "")")
    }

    /// SEMANTICS §1.7: writing `_error` for a catch phase is a write too: past the limit it
    /// fails the try_catch, whose catch never runs.
    @Test func anErrorObjectPastTheLimitFailsTheTryCatch() async throws {
        let (snapshot, marks) = try await runMarked(
            #"{"type": "try_catch", "id": "tc", "try_block": [{"type": "step", "id": "s", "handler": "boom"}], "catch_block": [{"type": "step", "id": "caught", "handler": "mark"}]}"#,
            input: try Self.nearlyFull(slack: 50))
        #expect(marks == 0, "the catch never ran")
        #expect(snapshot.state == .failed)
        #expect(snapshot.data["_error"] == nil)
        #expect(snapshot.error?.message.contains("context.data would be") == true, "\(snapshot.error?.message ?? "")")
    }

    /// A sub_sequence's input becomes its child's context.data, under the same limit: past it
    /// the sub_sequence fails and no child runs.
    @Test func aChildInputPastTheLimitFailsTheSubSequence() async throws {
        let child = #"{"name": "child", "version": 1, "blocks": [{"type": "step", "id": "k", "handler": "mark"}]}"#
        let input: JSONObject = ["a": Self.bulky(1), "b": Self.bulky(2), "c": Self.bulky(3)]
        let (snapshot, marks) = try await runMarked(
            #"{"type": "sub_sequence", "id": "sub", "sequence_name": "child", "input": {"p": "{{ data.a }}", "q": "{{ data.b }}", "r": "{{ data.c }}", "s": "{{ data.a }}", "t": "{{ data.b }}"}}"#,
            input: input, extra: [child])
        #expect(marks == 0, "no child step ran")
        #expect(snapshot.state == .failed)
        #expect(snapshot.error?.message.contains("context.data would be") == true, "\(snapshot.error?.message ?? "")")
    }

    /// The built-in `set` merges all or nothing: a merge whose write passes the limit leaves
    /// none of its members behind.
    @Test func aSetPastTheLimitMergesNothing() async throws {
        let (snapshot, _) = try await runMarked(
            #"{"type": "try_catch", "id": "tc", "try_block": [{"type": "step", "id": "setter", "handler": "set", "params": {"k": "0123456789"}}], "catch_block": []}"#,
            input: try Self.nearlyFull(slack: 30))
        #expect(snapshot.state == .completed)
        #expect(snapshot.data["k"] == nil && snapshot.data["setter"] == nil, "\(snapshot.data.keys)")
    }

    /// An input past the limit is refused by `start` itself: no instance is created.
    @Test func anInputPastTheLimitIsRefusedAtStart() async throws {
        let database = TemporaryDatabase()
        defer { database.cleanup() }
        let engine = try StepwiseEngine(databasePath: database.path)
        await engine.registerHandler("mark") { _ in .null }
        _ = try await engine.loadSequence(json: Array(#"{"name": "limits", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "mark"}]}"#.utf8))
        var input = try Self.nearlyFull(slack: 0)
        input["pad"] = .string((input["pad"]?.stringValue ?? "") + "!")
        let refused = await #expect(throws: StepwiseError.self) { try await engine.start("limits", input: .object(input)) }
        #expect(refused?.code == .invalidInput)
        #expect(refused?.message.contains("input is \(Self.limit + 1) bytes, more than the limit of \(Self.limit)") == true)
        #expect(try await engine.activeInstances().isEmpty)
        await engine.shutdown()
    }
}

/// Numbers handler calls from 1.
final class CallCounter: Sendable {
    private let count = Mutex(0)

    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}

import Foundation
import Stepwise
import Testing

/// `SyncResponse(decoding:)`: every rule of SYNC.md §2.4 and the decoder's own bounds.
struct SyncResponseTests {
    func decode(_ text: String) throws -> SyncResponse {
        try SyncResponse(decoding: Array(text.utf8))
    }

    func refusal(_ bytes: [UInt8]) -> SyncError? {
        do {
            _ = try SyncResponse(decoding: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("the documented example decodes")
    func example() throws {
        let response = try decode(
            #"{"commands": [{"id": "cmd-003", "type": "complete_step", "payload": {"instance_id": "I", "step_name": "show_terms", "output": {"value": "accepted"}}}], "sync_interval_secs": 45}"#)
        #expect(response.intervalSeconds == 45)
        #expect(response.commands.map(\.id) == ["cmd-003"])
        #expect(response.commands.first?.type == "complete_step")
        #expect(response.commands.first?.payload["output"] == ["value": "accepted"])
        #expect(response.skipped.isEmpty && response.ignoredCommands == 0 && response.receivedCommands == 1)
        #expect(response.warnings.isEmpty)
    }

    @Test("missing commands means none, missing interval means 30")
    func emptyObject() throws {
        let response = try decode("{}")
        #expect(response.commands.isEmpty && response.receivedCommands == 0 && response.intervalSeconds == 30)
        #expect(response.warnings.isEmpty)
    }

    @Test("a non-integer interval means 30, with a warning", arguments: [#""30""#, "2.5", "60.0", "1e300", "null", "true", "[5]", "{}"])
    func nonIntegerInterval(_ text: String) throws {
        let response = try decode(#"{"sync_interval_secs": \#(text)}"#)
        #expect(response.intervalSeconds == 30)
        #expect(response.warnings.count == 1 && response.warnings[0].hasPrefix("sync_interval_secs is not an integer"))
    }

    @Test("JSON integers are taken as is (60.0 is a float, as SEMANTICS §1.1 classifies it)", arguments: [("5", 5), ("0", 0), ("-7", -7), ("9223372036854775807", Int.max)])
    func integerInterval(_ c: (String, Int)) throws {
        #expect(try decode(#"{"sync_interval_secs": \#(c.0)}"#).intervalSeconds == c.1)
    }

    @Test("commands that are not an array mean none, with a warning")
    func commandsNotAnArray() throws {
        let response = try decode(#"{"commands": {"id": "c1", "type": "cancel_instance"}}"#)
        #expect(response.commands.isEmpty && response.receivedCommands == 0)
        #expect(response.warnings == ["commands is not an array (a object): no command executed"])
    }

    @Test("the flat form: the command minus id and type is the payload; output and input JSON text parsed")
    func flatForm() throws {
        let response = try decode(
            #"{"commands": [{"id": "c7", "type": "complete_step", "instance_id": "I", "step_name": "show_terms", "output": "{\"value\":\"accepted\"}"}, {"id": "c8", "type": "start_workflow", "sequence_name": "s", "input": "[1,2]"}, {"id": "c9", "type": "complete_step", "output": "not json"}]}"#)
        #expect(response.commands.map(\.id) == ["c7", "c8", "c9"])
        #expect(response.commands[0].payload == ["instance_id": "I", "step_name": "show_terms", "output": ["value": "accepted"]])
        #expect(response.commands[1].payload["input"] == [1, 2])
        #expect(response.commands[2].payload["output"] == "not json")
    }

    @Test("a payload object wins over the flat fields; its output text is parsed too")
    func payloadForm() throws {
        let response = try decode(#"{"commands": [{"id": "c1", "type": "complete_step", "extra": 1, "payload": {"output": "{\"a\":1}"}}]}"#)
        #expect(response.commands.first?.payload == ["output": ["a": 1]])
    }

    @Test("commands without a string id and type are skipped and reported, the others kept in order")
    func skipped() throws {
        let response = try decode(
            #"{"commands": [{"type": "cancel_instance"}, {"id": "a", "type": "x"}, {"id": 1, "type": "x"}, {"id": "c", "type": null}, "text", {"id": "b", "type": "y"}]}"#)
        #expect(response.commands.map(\.id) == ["a", "b"])
        #expect(response.receivedCommands == 6)
        #expect(response.skipped.map(\.index) == [0, 2, 3, 4])
        #expect(response.skipped.map(\.id) == [nil, nil, "c", nil])
        #expect(response.skipped.allSatisfy { $0.reason == "command without a string id and type" })
        #expect(response.warnings == ["4 command(s) without a string id and type skipped (cannot be acknowledged)"])
    }

    @Test("a skipped command's long id is shortened in the report")
    func skippedLongID() throws {
        let id = String(repeating: "i", count: 10_000)
        let response = try decode(#"{"commands": [{"id": "\#(id)"}]}"#)
        #expect(response.skipped.first?.id == String(repeating: "i", count: 128) + "…")
    }

    static func commands(_ n: Int) -> String {
        #"{"commands": ["# + (0..<n).map { #"{"id": "c\#($0)", "type": "x"}"# }.joined(separator: ",") + "]}"
    }

    @Test("500 commands are decoded; beyond, the rest are ignored and reported")
    func commandCap() throws {
        let exactly = try decode(Self.commands(500))
        #expect(exactly.commands.count == 500 && exactly.ignoredCommands == 0 && exactly.warnings.isEmpty)
        let over = try decode(Self.commands(501))
        #expect(over.commands.count == 500 && over.commands.last?.id == "c499")
        #expect(over.receivedCommands == 501 && over.ignoredCommands == 1)
        #expect(over.warnings == ["1 command(s) past the first 500 ignored until a later sync"])
    }

    @Test("100,000 commands under the body limit: 500 decoded, 99,500 ignored")
    func hundredThousandCommands() throws {
        let text = #"{"commands":["# + (0..<100_000).map { #"{"id":"c\#($0)","type":"x"}"# }.joined(separator: ",") + "]}"
        #expect(text.utf8.count <= SyncResponse.maximumBodyBytes)
        let response = try decode(text)
        #expect(response.commands.count == 500 && response.ignoredCommands == 99_500 && response.receivedCommands == 100_000)
    }

    @Test("a body over 4 MiB is refused before parsing; exactly 4 MiB is parsed")
    func bodyCap() throws {
        let limit = SyncResponse.maximumBodyBytes
        let exactly = Array("{}".utf8) + Array(repeating: UInt8(ascii: " "), count: limit - 2)
        #expect(try SyncResponse(decoding: exactly).commands.isEmpty)
        let error = try #require(refusal(exactly + [UInt8(ascii: " ")]))
        #expect(error.code == .network)
        #expect(error.message == "sync response body of 4194305 bytes exceeds the 4 MiB limit")
        #expect(error.context["body_bytes"] == 4_194_305 && error.context["limit_bytes"] == 4_194_304)
    }

    @Test("bodies that are not a JSON object are refused", arguments: ["[]", "<html>Bad gateway</html>", "", "null", #"{"a":1,"a":2}"#, "{"])
    func notAnObject(_ text: String) throws {
        let error = try #require(refusal(Array(text.utf8)))
        #expect(error.code == .network)
        #expect(error.message == "sync answered a body that is not a JSON object")
        #expect(error.stepwiseError.message == error.message)
    }

    @Test("a parse failure names the JSON error in the context")
    func parseErrorContext() throws {
        let error = try #require(refusal(Array(#"{"a":1,"a":2}"#.utf8)))
        #expect(error.context["json_error"] == "duplicate key 'a' at byte 7")
        #expect(refusal(Array("[]".utf8))?.context.isEmpty == true)
    }
}

/// `SyncChannel.roundTrip` on responses the decoder bounds.
@Suite("Sync channel with bounded responses")
struct SyncChannelBoundedResponseTests {
    func withEngine(_ body: (StepwiseEngine, ScriptedTransport) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        var configuration = EngineConfiguration()
        configuration.syncUrl = "https://sync.test/mobile/sync"
        configuration.deviceId = "device-9"
        let transport = ScriptedTransport()
        let channel = try SyncChannel(configuration: configuration, transport: transport)
        let engine = try StepwiseEngine(store: try SQLiteExecutionStore(path: path), configuration: configuration, syncChannel: channel)
        try await body(engine, transport)
        await engine.shutdown()
    }

    @Test("a response of 600 commands executes the first 500; the follow-up requests acknowledge them")
    func commandCapInTheChannel() async throws {
        try await withEngine { engine, transport in
            let commands = (0..<600).map { JSONValue.object(["id": .string("c\($0)"), "type": "no_such_command"]) }
            transport.answer(200, ["commands": .array(commands), "sync_interval_secs": 5])
            let result = try await engine.syncChannel()
            #expect(result.succeeded && result.commandsExecuted == 500)
            // Acks go out 100 a request in the follow-up requests of the same round trip.
            let acks = transport.requests.flatMap { $0.body["command_acks"]?.arrayValue ?? [] }.compactMap(\.stringValue)
            #expect(Set(acks) == Set((0..<500).map { "c\($0)" }))
        }
    }

    @Test("a body over 4 MiB fails the round trip and delivers nothing")
    func bodyCapInTheChannel() async throws {
        try await withEngine { engine, transport in
            transport.answer(200, ["commands": [], "padding": .string(String(repeating: "p", count: 4 * 1_048_576))])
            let result = try await engine.syncChannel()
            #expect(!result.succeeded && result.rowsDelivered == 0)
            #expect(result.error?.hasSuffix("bytes exceeds the 4 MiB limit") == true)
            transport.answer(200, ["commands": "not a list"])
            let next = try await engine.syncChannel()
            #expect(next.succeeded && next.commandsExecuted == 0 && next.intervalSeconds == 30)
        }
    }
}

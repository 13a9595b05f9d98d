import Stepwise
import Testing

/// `Fixtures/hostile/sync-response` (SYNC.md §2.4): a sync response body read as
/// `SyncChannel.roundTrip` reads it (a JSON object, `sync_interval_secs`, `commands`), each
/// command decoded with `SyncCommand(json:)`.
///
/// `expect`: `{"object": false}` when the body must be refused as not a JSON object, or
/// `{"commands": N, "decoded": M, "interval"?: I, "output_is_text"?: Bool}`.
@Suite(.serialized)
struct SyncResponseHostileTests {
    struct Decoded: Sendable {
        let isObject: Bool
        let interval: Int
        let commands: Int
        let decoded: [SyncCommand]
    }

    @Test(arguments: HostileCorpus.cases("sync-response"))
    func decodesOrRefusesCleanly(_ c: HostileCase) throws {
        Expect.knownKeys(c, ["object", "commands", "decoded", "interval", "output_is_text"])
        let bytes = try c.input()
        guard
            let result = Expect.bounded(c, { () -> Decoded in
                guard case .object(let response)? = try? JSONParser.parse(bytes) else {
                    return Decoded(isObject: false, interval: 0, commands: 0, decoded: [])
                }
                let interval = response["sync_interval_secs"]?.exactIntegerValue.map(Int.init) ?? 30
                let commands = response["commands"]?.arrayValue ?? []
                return Decoded(
                    isObject: true, interval: interval, commands: commands.count,
                    decoded: commands.compactMap { SyncCommand(json: $0) })
            })
        else { return }
        let e = c.expect
        if e["object"]?.boolValue == false {
            #expect(!result.isObject, "\(c.testDescription): read as an object")
            return
        }
        #expect(result.isObject, "\(c.testDescription): not read as an object")
        if let n = e["commands"]?.exactIntegerValue { #expect(result.commands == Int(n)) }
        if let n = e["decoded"]?.exactIntegerValue { #expect(result.decoded.count == Int(n)) }
        if let n = e["interval"]?.exactIntegerValue { #expect(result.interval == Int(n)) }
        if let text = e["output_is_text"]?.boolValue {
            #expect((result.decoded.first?.payload["output"]?.stringValue != nil) == text)
        }
    }
}

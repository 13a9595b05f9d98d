import Stepwise
import Testing

/// `Fixtures/hostile/sync-response` (SYNC.md §2.4): a sync response body decoded by
/// `SyncResponse(decoding:)`, the decoder `SyncChannel.roundTrip` uses.
///
/// `expect`: `{"error": {"code", "message"}}` when the body must be refused (the message by
/// substring), or `{"commands": N, "decoded": M, "skipped"?: S, "ignored"?: I, "interval"?: T,
/// "output_is_text"?: Bool}`: `commands` is the length of the body's `commands` array, `decoded`
/// the commands that would be executed.
@Suite(.serialized)
struct SyncResponseHostileTests {
    @Test(arguments: HostileCorpus.cases("sync-response"))
    func decodesOrRefusesCleanly(_ c: HostileCase) throws {
        Expect.knownKeys(c, ["error", "commands", "decoded", "skipped", "ignored", "interval", "output_is_text"])
        let bytes = try c.input()
        guard
            let result = Expect.bounded(c, { () -> Result<SyncResponse, SyncError> in
                do throws(SyncError) {
                    return .success(try SyncResponse(decoding: bytes))
                } catch {
                    return .failure(error)
                }
            })
        else { return }
        let e = c.expect
        switch result {
        case .failure(let error):
            guard let expected = e["error"]?.objectValue else {
                Issue.record("\(c.testDescription): refused: \(error)")
                return
            }
            if let code = expected["code"]?.stringValue {
                #expect(error.code.rawValue == code, "\(c.testDescription): code \(error.code)")
            }
            Expect.message(error.message, contains: expected["message"]?.stringValue, c)
        case .success(let response):
            #expect(e["error"] == nil, "\(c.testDescription): decoded, expected a refusal")
            if let n = e["commands"]?.exactIntegerValue { #expect(response.receivedCommands == Int(n)) }
            if let n = e["decoded"]?.exactIntegerValue { #expect(response.commands.count == Int(n)) }
            if let n = e["skipped"]?.exactIntegerValue { #expect(response.skipped.count == Int(n)) }
            if let n = e["ignored"]?.exactIntegerValue { #expect(response.ignoredCommands == Int(n)) }
            if let n = e["interval"]?.exactIntegerValue { #expect(response.intervalSeconds == Int(n)) }
            if let text = e["output_is_text"]?.boolValue {
                #expect((response.commands.first?.payload["output"]?.stringValue != nil) == text)
            }
            for warning in response.warnings { Expect.message(warning, contains: nil, c) }
        }
    }
}

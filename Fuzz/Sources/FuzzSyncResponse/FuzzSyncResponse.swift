import FuzzSupport
import Stepwise

/// Fuzzes `SyncResponse(decoding:)`, the sync response decoder `SyncChannel.roundTrip` uses
/// (SYNC.md §2.4): a 4 MiB body limit, a JSON object, `sync_interval_secs` and `commands`, the
/// first 500 commands decoded with `SyncCommand(json:)` (payload or flat form, `output`/`input`
/// given as JSON text parsed). Executing the commands (`StepwiseEngine.executeSyncCommand`) needs
/// an engine and is not fuzzed here.
///
/// Invariants: a refusal is a `network` error with a bounded message; an accepted body is a JSON
/// object; decoded plus skipped commands are the first `min(500, n)` elements, the rest counted
/// as ignored; a decoded command has its element's string `id` and `type`, never keeps `id`/`type`
/// in a flat payload, and its `output`/`input` is no longer JSON text when that text parses; a
/// skipped element has no string `id` and `type`; the interval is the JSON integer given, else 30.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSyncResponse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let response: SyncResponse
    do {
        response = try SyncResponse(decoding: bytes)
    } catch {
        fuzzCheck(error.code == .network, "a refusal that is not a network error: \(error.code)")
        fuzzCheck(!error.message.isEmpty && error.message.utf8.count <= 4096, "an empty or unbounded message")
        let parsed = try? JSONParser.parse(bytes)
        fuzzCheck(parsed?.objectValue == nil || bytes.count > SyncResponse.maximumBodyBytes, "a JSON object was refused")
        return 0
    }
    guard case .object(let object)? = try? JSONParser.parse(bytes) else {
        fuzzCheck(false, "accepted a body that is not a JSON object")
        return 0
    }
    let elements = object["commands"]?.arrayValue ?? []
    // A JSON integer only: `5.0` is a float (SEMANTICS §1.1), so 30.
    var expectedInterval = 30
    if case .integer(let n)? = object["sync_interval_secs"] { expectedInterval = Int(clamping: n) }
    fuzzCheck(response.intervalSeconds == expectedInterval, "interval \(response.intervalSeconds) ≠ \(expectedInterval)")
    fuzzCheck(response.receivedCommands == elements.count, "received count")
    let looked = min(elements.count, SyncResponse.maximumCommands)
    fuzzCheck(response.ignoredCommands == elements.count - looked, "ignored count")
    fuzzCheck(response.commands.count + response.skipped.count == looked, "decoded + skipped ≠ looked at")
    for warning in response.warnings {
        fuzzCheck(!warning.isEmpty && warning.utf8.count <= 4096, "an empty or unbounded warning")
    }
    let skippedIndices = Set(response.skipped.map(\.index))
    var decoded = response.commands.makeIterator()
    for (index, raw) in elements.prefix(looked).enumerated() {
        if skippedIndices.contains(index) {
            let decodable = raw["id"]?.stringValue != nil && raw["type"]?.stringValue != nil
            fuzzCheck(!decodable, "a command with a string id and type was skipped")
            continue
        }
        guard let command = decoded.next() else {
            fuzzCheck(false, "fewer decoded commands than elements not skipped")
            return 0
        }
        fuzzCheck(raw["id"]?.stringValue == command.id, "the id changed")
        fuzzCheck(raw["type"]?.stringValue == command.type, "the type changed")
        if raw["payload"]?.objectValue == nil {
            fuzzCheck(command.payload["id"] == nil && command.payload["type"] == nil, "a flat payload keeps id or type")
        }
        for key in ["output", "input"] {
            if case .string(let text)? = command.payload[key] {
                fuzzCheck((try? JSONParser.parse(text)) == nil, "\(key) is still JSON text that parses")
            }
        }
        JSONInvariants.checkRoundTrip(.object(command.payload), "command payload")
    }
    return 0
}

import FuzzSupport
import Stepwise

/// Fuzzes the decoding of a sync channel response (SYNC.md §2.4): the body must be a JSON
/// object; `sync_interval_secs` and `commands` are read as `SyncChannel.roundTrip` reads them;
/// each command is decoded with `SyncCommand(json:)` (payload or flat form, `output`/`input` given
/// as JSON text parsed).
///
/// There is no standalone response decoder yet: the body handling lives inline in
/// `SyncChannel.roundTrip`, so this target restates its three reads. Executing the commands
/// (`StepwiseEngine.executeSyncCommand`) needs an engine and is not fuzzed here.
///
/// Invariants: a decoded command has the input's string `id` and `type`, never keeps `id`/`type`
/// in a flat payload, and its `output`/`input` is no longer JSON text when that text parses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSyncResponse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard case .object(let response)? = try? JSONParser.parse(bytes) else { return 0 }
    _ = response["sync_interval_secs"]?.exactIntegerValue.map(Int.init) ?? 30
    for raw in response["commands"]?.arrayValue ?? [] {
        guard let command = SyncCommand(json: raw) else {
            let decodable = raw["id"]?.stringValue != nil && raw["type"]?.stringValue != nil
            fuzzCheck(!decodable, "a command with a string id and type was skipped")
            continue
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

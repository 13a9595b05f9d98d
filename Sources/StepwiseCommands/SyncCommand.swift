public import ArgumentParser
import Foundation
import Stepwise

/// `stepwise sync --sync-url URL`: one device sync-channel round trip (SYNC.md §2) for the
/// local database, as an app would make it: registration when needed, the outbox's status,
/// approvals and acks sent, the server's commands executed exactly once.
///
/// Exit status: 0 the round trip succeeded, 1 it failed (server unreachable, refused, an
/// error status; nothing was deleted from the outbox), 2 unusable input.
public struct SyncCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Make one sync-channel round trip with a sync server for the local database.",
        discussion: """
            Sends the outbox (instance status, pending approvals, command acks and results) to the server's sync \
            endpoint and executes the commands it answers with (complete_step, cancel_instance, start_workflow, \
            update_sequence, send_signal, step_result), each exactly once. Steps those commands make runnable run \
            under `stepwise resume`. The device id is --device-id, else the one this database generated on its \
            first sync. Try it against `stepwise serve`: \
            stepwise sync --sync-url http://127.0.0.1:8080/mobile/sync --api-key KEY --allow-insecure-localhost. \
            Exit status: 0 synced, 1 the round trip failed (nothing was lost), 2 unusable input.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The server's sync endpoint (https; see --allow-insecure-localhost).", valueName: "url"))
    var syncUrl: String

    @Option(name: .long, help: ArgumentHelp("The API key sent as x-api-key.", valueName: "key"))
    var apiKey: String = ""

    @Option(name: .long, help: ArgumentHelp("The device id sent as x-device-id.", valueName: "id"))
    var deviceId: String = ""

    @Flag(name: .long, help: "Allow http:// to localhost and 127.0.0.1 (a local `stepwise serve`).")
    var allowInsecureLocalhost = false

    @Option(name: .long, help: ArgumentHelp("Per-request timeout in milliseconds.", valueName: "ms"))
    var timeoutMs: UInt64 = 10_000

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @OptionGroup var database: DatabaseOptions

    public init() {}

    public func run() async throws {
        let output = await execute()
        try output.finish()
    }

    /// Makes the round trip.
    func execute() async -> CommandOutput {
        var configuration = EngineConfiguration()
        configuration.syncUrl = syncUrl
        configuration.syncApiKey = apiKey
        configuration.deviceId = deviceId
        configuration.allowInsecureLocalhost = allowInsecureLocalhost
        guard timeoutMs > 0 else { return CommandFailure("--timeout-ms must be positive", exitCode: 2).output }
        configuration.operationTimeoutMs = timeoutMs
        let channel: SyncChannel
        do {
            try configuration.validate()
            channel = try SyncChannel(configuration: configuration, appVersion: configuration.sdkVersion)
        } catch {
            return CommandFailure(error.message, exitCode: 2).output
        }
        let opened: OpenedDatabase
        do {
            opened = try OpenedDatabase.open(
                database.db, mustExist: false, exclusive: true, configuration: configuration, syncChannel: channel)
        } catch {
            return error.output
        }
        let engine = opened.engine
        // Commands that start or update instances check handlers: the stored sequences' handler
        // names stand registered here (nothing runs during a sync; `resume` runs them).
        await opened.standInForStoredHandlers()
        var result: ChannelSyncResult
        do {
            result = try await engine.syncChannel()
        } catch {
            await opened.close()
            return CommandFailure.engine(error).output
        }
        let device = await channel.deviceID(engine)
        await opened.close()
        // Closing flushes once more (SYNC.md §2.10): commands that round trip ran belong to
        // this sync's report too.
        if let flush = await engine.lastChannelSync, flush != result {
            result.requests += flush.requests
            result.rowsDelivered += flush.rowsDelivered
            result.commandsExecuted += flush.commandsExecuted
            result.warnings += flush.warnings
            if result.error == nil, let error = flush.error {
                result.warnings.append("the final flush at close failed: \(error) (the next sync sends its rows)")
            }
            if flush.error == nil {
                // The flush got through: whatever the first round trip could not send went then.
                if let error = result.error {
                    result.warnings.append("\(error); the final flush at close then succeeded")
                    result.error = nil
                }
                result.httpStatus = flush.httpStatus ?? result.httpStatus
                result.intervalSeconds = flush.intervalSeconds ?? result.intervalSeconds
            }
        }
        return report(result, device: device)
    }

    private func report(_ result: ChannelSyncResult, device: String) -> CommandOutput {
        let failed = result.error != nil
        if json {
            var object: JSONObject = [
                "device_id": .string(device), "requests": .integer(Int64(result.requests)),
                "rows_delivered": .integer(Int64(result.rowsDelivered)),
                "commands_executed": .integer(Int64(result.commandsExecuted)),
            ]
            object["http_status"] = result.httpStatus.map { .integer(Int64($0)) } ?? .null
            object["interval_seconds"] = result.intervalSeconds.map { .integer(Int64($0)) } ?? .null
            object["error"] = result.error.map(JSONValue.string) ?? .null
            object["warnings"] = .array(result.warnings.map(JSONValue.string))
            return CommandOutput(
                standardOutput: JSONWriter.string(.object(object), options: [.prettyPrinted]) + "\n", exitCode: failed ? 1 : 0)
        }
        let warnings = result.warnings.map { "warning: \($0)\n" }.joined()
        if let error = result.error {
            var hint = ""
            if [401, 403].contains(result.httpStatus ?? 0) || error.contains("HTTP 401") || error.contains("HTTP 403") {
                hint = apiKey.isEmpty
                    ? "the server wants an API key: pass it with --api-key KEY (`stepwise serve` prints the one it accepts)\n"
                    : "the server refused the API key given with --api-key\n"
            }
            return CommandOutput(
                standardError: warnings + "error: sync failed: \(error)\n" + hint
                    + "nothing was lost: the outbox is sent again by the next sync\n",
                exitCode: 1)
        }
        var text = "synced as device \(device): \(result.requests) request\(result.requests == 1 ? "" : "s"), "
        text += "\(result.rowsDelivered) row\(result.rowsDelivered == 1 ? "" : "s") delivered, "
        text += "\(result.commandsExecuted) command\(result.commandsExecuted == 1 ? "" : "s") executed\n"
        if let interval = result.intervalSeconds {
            // The scheduler keeps the server's hint within 5 s … 1 h (SYNC.md §2.3).
            let used = min(max(interval, 5), 3600)
            text += "the server asks for the next sync in \(interval) s" + (used == interval ? "" : " (\(used) s used)") + "\n"
        }
        if result.commandsExecuted > 0 {
            text += "continue the instances they changed with: stepwise resume\(DatabaseOptions.flag(for: database.db))\n"
        }
        return CommandOutput(standardOutput: text, standardError: warnings)
    }
}

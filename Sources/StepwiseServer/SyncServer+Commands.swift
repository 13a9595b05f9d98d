import Hummingbird
import StepwiseJSON

extension SyncServer {
    /// The command types of SYNC.md §2.5.
    static let commandTypes: Set<String> = [
        "complete_step", "cancel_instance", "start_workflow", "update_sequence", "send_signal", "step_result",
    ]

    /// The `update_sequence` policies of SYNC.md §2.7.
    static let updatePolicies: Set<String> = ["restart", "graceful", "fail", "cancel", "skip_executed"]

    /// The most bytes a queued command's payload may hold: a device takes at most 4 MiB per
    /// sync answer, and a command it can never receive would never be acknowledged.
    static let maxCommandPayloadBytes = 1 << 20

    /// The deepest nesting a queued command's payload may have: devices read sync answers
    /// with SEMANTICS §1.1's limit of 256 levels, and a payload sits 4 levels down in one.
    static let maxCommandPayloadDepth = 250

    /// Refuses a payload no device could take in a sync answer: 413 past
    /// ``maxCommandPayloadBytes``, 400 past ``maxCommandPayloadDepth``.
    func checkDeliverable(_ payload: JSONValue, what: String) throws(SyncServerError) {
        let size = JSONWriter.bytes(payload).count
        if size > Self.maxCommandPayloadBytes {
            throw SyncServerError(
                .contentTooLarge, "\(what) is \(size) bytes; a command may carry at most \(Self.maxCommandPayloadBytes) bytes")
        }
        if Self.nestingDepth(payload, limit: Self.maxCommandPayloadDepth + 1) > Self.maxCommandPayloadDepth {
            throw SyncServerError(
                .badRequest, "\(what) nests more than \(Self.maxCommandPayloadDepth) levels deep; devices could not read the command")
        }
    }

    /// The nesting depth of `value` (a scalar is 0), counted no further than `limit`.
    static func nestingDepth(_ value: JSONValue, limit: Int) -> Int {
        guard limit > 0 else { return 0 }
        switch value {
        case .array(let items): return 1 + items.reduce(0) { max($0, nestingDepth($1, limit: limit - 1)) }
        case .object(let members): return 1 + members.reduce(0) { max($0, nestingDepth($1.value, limit: limit - 1)) }
        default: return 0
        }
    }

    /// When a command queued at `now` expires (the TTL saturates rather than overflows).
    func commandExpiry(now: Int64) -> Int64 {
        let (ttl, overflow) = configuration.commandTTLSeconds.multipliedReportingOverflow(by: 1000)
        let (expiry, late) = now.addingReportingOverflow(overflow ? .max : ttl)
        return overflow || late ? .max : expiry
    }

    /// `POST /mobile/commands` with `{device_id, command_type, payload}` → 201 `{"id"}`.
    func handleCreateCommand(_ request: Request) async throws(SyncServerError) -> Response {
        let tenant = try await authenticate(request)
        let body = FieldReader(try await readJSONObject(request))
        let deviceID = try body.string("device_id")
        try checkDeviceHeader(request, bodyDeviceID: deviceID)
        let type = try body.string("command_type")
        let payloadObject: JSONObject
        switch body.value("payload") {
        case .null: payloadObject = JSONObject()
        case .object(let object): payloadObject = object
        default: throw SyncServerError(.badRequest, "payload must be an object")
        }
        guard try await store.device(deviceID, tenant: tenant) != nil else {
            throw SyncServerError(.notFound, "device '\(deviceID)' not found")
        }
        guard Self.commandTypes.contains(type) else {
            throw SyncServerError(.badRequest, "unknown command type '\(type)'")
        }
        try checkDeliverable(.object(payloadObject), what: "payload")
        let payload = FieldReader(payloadObject, path: "payload")
        var resolving: (instanceID: String, blockID: String, output: JSONValue)?
        switch type {
        case "complete_step":
            let stepName = try payload.optionalString("step_name")
            let blockID = try payload.optionalString("block_id")
            guard let step = stepName ?? blockID, !step.isEmpty else {
                throw SyncServerError(.badRequest, "complete_step needs payload.step_name or payload.block_id")
            }
            let output = try payload.objectOrJSONText("output") ?? JSONObject()
            resolving = (try payload.string("instance_id"), step, .object(output))
        case "start_workflow":
            _ = try payload.string("sequence_name")
            _ = try payload.objectOrJSONText("input")
        case "update_sequence":
            if let policy = try payload.optionalString("policy"), !Self.updatePolicies.contains(policy) {
                throw SyncServerError(.badRequest, "unknown update_sequence policy '\(policy)'")
            }
        case "send_signal":
            let signal = payload.value("signal_type")
            guard (signal.stringValue.map { !$0.isEmpty } ?? false) || signal["custom"]?.stringValue != nil else {
                throw SyncServerError(.badRequest, "send_signal needs payload.signal_type (a string or {\"custom\": name})")
            }
        case "step_result":
            _ = try payload.string("request_id")
            _ = try payload.string("block_id")
            guard try payload.optionalBool("success") != nil else {
                throw SyncServerError(.badRequest, "step_result needs payload.success (a boolean)")
            }
        default:
            break
        }
        if type != "start_workflow" {
            let instanceID = try payload.string("instance_id")
            guard try await store.hasReported(instanceID: instanceID, deviceID: deviceID, tenant: tenant) else {
                throw SyncServerError(.badRequest, "device '\(deviceID)' never reported instance '\(instanceID)'")
            }
        }
        let now = clock.now()
        var command = NewCommand(
            id: ServerIdentifier.make(), tenant: tenant, deviceID: deviceID, type: type, payload: .object(payloadObject),
            createdAt: now, expiresAt: commandExpiry(now: now))
        if type == "step_result", payloadObject["resolved_params"] != nil {
            // Secrets given by the caller are stored only encrypted, like resolved delegations.
            command.sealedPayload = sealer.seal(JSONWriter.bytes(.object(payloadObject)))
            var visible = payloadObject
            visible.removeValue(forKey: "resolved_params")
            visible["resolved_params_sealed"] = true
            command.payload = .object(visible)
        }
        try await store.enqueueCommand(command, resolving: resolving, now: now)
        await pushIfPossible(deviceID: deviceID, tenant: tenant, commandID: command.id)
        return JSONResponse.make(status: .created, body: ["id": .string(command.id)])
    }
}

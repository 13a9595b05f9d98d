import Hummingbird
import StepwiseJSON

extension SyncServer {
    /// `POST /mobile/sync` (SYNC.md §2.3–2.4, §5).
    func handleSync(_ request: Request) async throws(SyncServerError) -> Response {
        let tenant = try await authenticate(request)
        let body = FieldReader(try await readJSONObject(request))
        let limit = configuration.maxArrayItems
        let statusItems = try body.array("status_updates", limit: limit)
        let approvalItems = try body.array("approval_requests", limit: limit)
        let delegationItems = try body.array("step_delegations", limit: limit)
        let ackItems = try body.array("command_acks", limit: limit)
        let resultItems = try body.array("command_results", limit: limit)
        let deviceID = try body.string("device_id")
        try checkDeviceHeader(request, bodyDeviceID: deviceID)
        let now = clock.now()

        var batch = SyncBatch(tenant: tenant, deviceID: deviceID)
        batch.deliveryLimit = configuration.maxCommandsPerSync
        for (index, item) in statusItems.enumerated() {
            batch.statuses.append(try parseStatus(item, path: "status_updates[\(index)]", tenant: tenant, deviceID: deviceID, now: now))
        }
        for (index, item) in approvalItems.enumerated() {
            batch.approvals.append(
                try parseApproval(item, path: "approval_requests[\(index)]", tenant: tenant, deviceID: deviceID, now: now))
        }
        for (index, item) in delegationItems.enumerated() {
            batch.delegations.append(
                try parseDelegation(item, path: "step_delegations[\(index)]", tenant: tenant, deviceID: deviceID, now: now))
        }
        for (index, item) in ackItems.enumerated() {
            guard case .string(let id) = item else {
                throw SyncServerError(.badRequest, "command_acks[\(index)] must be a string")
            }
            batch.acks.append(id)
        }
        for (index, item) in resultItems.enumerated() {
            let result = try FieldReader(item, path: "command_results[\(index)]")
            batch.results.append(
                CommandResult(
                    id: try result.string("id"), outcome: try result.string("outcome"),
                    instanceID: try result.optionalString("instance_id"), error: try result.optionalString("error")))
        }

        let delivery = try await store.applySync(batch, now: now)
        await pruneIfDue(now: now)
        let interval = delivery.pendingCount > 0 ? configuration.busySyncIntervalSeconds : configuration.idleSyncIntervalSeconds
        return JSONResponse.make(body: [
            "commands": .array(delivery.commands.map(wireCommand)), "sync_interval_secs": .integer(Int64(interval)),
        ])
    }

    private func parseStatus(_ item: JSONValue, path: String, tenant: TenantID, deviceID: String, now: Int64)
        throws(SyncServerError) -> InstanceStatusRecord
    {
        let status = try FieldReader(item, path: path)
        let timestampText = try status.string("timestamp")
        guard let timestamp = ServerTime.parse(timestampText) else {
            throw SyncServerError(.badRequest, "\(path).timestamp is not an RFC 3339 date-time")
        }
        let steps = status.value("steps")
        guard steps.isNull || steps.arrayValue != nil else {
            throw SyncServerError(.badRequest, "\(path).steps must be an array")
        }
        // `context_summary` (sent by orch8 devices) is deliberately not stored.
        return InstanceStatusRecord(
            deviceID: deviceID, tenant: tenant, instanceID: try status.string("instance_id"),
            sequenceName: try status.optionalString("sequence_name") ?? "",
            sequenceVersion: try status.optionalInteger("sequence_version"), state: try status.string("state"),
            currentStep: try status.optionalString("current_step"), handler: try status.optionalString("handler"),
            steps: steps.isNull ? .array([]) : steps, error: status.value("error"),
            parentInstanceID: try status.optionalString("parent_instance_id"), reportedAt: timestamp, updatedAt: now)
    }

    private func parseApproval(_ item: JSONValue, path: String, tenant: TenantID, deviceID: String, now: Int64)
        throws(SyncServerError) -> ApprovalRecord
    {
        let approval = try FieldReader(item, path: path)
        let choices = approval.value("choices")
        guard choices.isNull || choices.arrayValue != nil else {
            throw SyncServerError(.badRequest, "\(path).choices must be an array or null")
        }
        let metadata = approval.value("metadata")
        guard metadata.isNull || metadata.objectValue != nil else {
            throw SyncServerError(.badRequest, "\(path).metadata must be an object or null")
        }
        let timeout = try approval.optionalInteger("timeout_seconds")
        if let timeout, timeout < 0 {
            throw SyncServerError(.badRequest, "\(path).timeout_seconds must not be negative")
        }
        let lifetime = min(timeout ?? configuration.approvalTTLSeconds, Int64.max / 2000)
        return ApprovalRecord(
            id: ServerIdentifier.make(), deviceID: deviceID, tenant: tenant, instanceID: try approval.string("instance_id"),
            blockID: try approval.string("block_id"), sequenceName: try approval.optionalString("sequence_name"),
            prompt: try approval.optionalString("prompt"), choices: choices, storeAs: try approval.optionalString("store_as"),
            timeoutSeconds: timeout, metadata: metadata, createdAt: now, expiresAt: now + lifetime * 1000)
    }

    private func parseDelegation(_ item: JSONValue, path: String, tenant: TenantID, deviceID: String, now: Int64)
        throws(SyncServerError) -> DelegationRecord
    {
        let delegation = try FieldReader(item, path: path)
        let requestID = try delegation.string("request_id")
        let instanceID = try delegation.string("instance_id")
        let blockID = try delegation.string("block_id")
        let handler = try delegation.optionalString("handler")
        let params = JSONValue.object(try delegation.optionalObject("params") ?? JSONObject())
        var payload: JSONObject = [
            "request_id": .string(requestID), "instance_id": .string(instanceID), "block_id": .string(blockID),
            "handler": handler.map(JSONValue.string) ?? .null,
        ]
        var command = NewCommand(
            id: ServerIdentifier.make(), tenant: tenant, deviceID: deviceID, type: "step_result", payload: .null,
            createdAt: now, expiresAt: commandExpiry(now: now))
        switch credentials.resolve(params, tenant: tenant) {
        case .success(let resolved):
            payload["success"] = true
            var sealed = payload
            sealed["resolved_params"] = resolved
            command.sealedPayload = sealer.seal(JSONWriter.bytes(.object(sealed)))
            payload["resolved_params_sealed"] = true
            command.payload = .object(payload)
            return DelegationRecord(
                requestID: requestID, instanceID: instanceID, blockID: blockID, handler: handler, succeeded: true, error: nil,
                command: command)
        case .failure(let error):
            payload["success"] = false
            payload["error"] = .string(error.message)
            command.payload = .object(payload)
            return DelegationRecord(
                requestID: requestID, instanceID: instanceID, blockID: blockID, handler: handler, succeeded: false,
                error: error.message, command: command)
        }
    }

    /// A queued command as sent in a sync response: its sealed payload opened, in the
    /// configured ``CommandFormat``.
    func wireCommand(_ record: CommandRecord) -> JSONValue {
        var payload = record.command.payload
        if let sealed = record.command.sealedPayload {
            if let plain = sealer.open(sealed), let opened = try? JSONParser.parse(plain) {
                payload = opened
            } else if case .object(var object) = payload {
                // Sealed with another key (the server's key changed): answer with a failure the
                // device can act on rather than never delivering.
                object.removeValue(forKey: "resolved_params_sealed")
                object["success"] = false
                object["error"] = "the server could not decrypt the resolved credentials"
                payload = .object(object)
            }
        }
        // A payload with its own `id`, `type` or `payload` member (a send_signal's payload)
        // cannot be spread flat (SYNC.md §2.4 reads a `payload` member as the nested form): such
        // a command goes nested whatever the format.
        let spreadable = payload.objectValue.map { !$0.keys.contains { ["id", "type", "payload"].contains($0) } } ?? true
        switch configuration.commandFormat {
        case .flat where !spreadable, .nested:
            return ["id": .string(record.command.id), "type": .string(record.command.type), "payload": payload]
        case .flat:
            var flat: JSONObject = ["id": .string(record.command.id), "type": .string(record.command.type)]
            if case .object(let fields) = payload {
                for (key, value) in fields {
                    if (key == "output" || key == "input"), value.objectValue != nil {
                        flat[key] = .string(JSONWriter.string(value))
                    } else {
                        flat[key] = value
                    }
                }
            }
            return .object(flat)
        }
    }
}

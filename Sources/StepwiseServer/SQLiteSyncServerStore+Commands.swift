public import StepwiseJSON
import StepwiseSQLite

extension SQLiteSyncServerStore {
    static let commandColumns = """
        id, tenant_id, device_id, type, payload, sealed_payload, created_at, expires_at, delivery_count,
        last_delivered_at, acked_at, result_outcome, result_instance_id, result_error
        """

    static func decodeCommand(_ row: [SQLiteValue]) -> CommandRecord? {
        guard let id = row[0].textValue, let tenant = row[1].textValue.flatMap(TenantID.init(rawValue:)),
            let device = row[2].textValue, let type = row[3].textValue
        else { return nil }
        let command = NewCommand(
            id: id, tenant: tenant, deviceID: device, type: type, payload: row[4].jsonValue,
            sealedPayload: row[5].blobValue, createdAt: row[6].int64Value ?? 0, expiresAt: row[7].int64Value ?? 0)
        let result = row[11].textValue.map {
            CommandResult(id: id, outcome: $0, instanceID: row[12].textValue, error: row[13].textValue)
        }
        return CommandRecord(
            command: command, deliveryCount: Int(row[8].int64Value ?? 0), lastDeliveredAt: row[9].int64Value,
            ackedAt: row[10].int64Value, result: result)
    }

    /// Inserts a command row (inside the caller's transaction).
    func insertCommand(_ command: NewCommand) throws {
        try connection.execute(
            """
            INSERT INTO commands(id, tenant_id, device_id, type, payload, sealed_payload, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            bindings: [
                .text(command.id), .text(command.tenant.rawValue), .text(command.deviceID), .text(command.type),
                .json(command.payload), command.sealedPayload.map(SQLiteValue.blob) ?? .null, .integer(command.createdAt),
                .integer(command.expiresAt),
            ])
    }

    /// Marks the pending approval of (device, instance, block) resolved by `commandID`.
    func resolvePendingApproval(
        tenant: TenantID, deviceID: String, instanceID: String, blockID: String, output: JSONValue, commandID: String,
        now: Int64
    ) throws {
        try connection.execute(
            """
            UPDATE approvals SET state = 'resolved', resolution = ?, resolved_at = ?, command_id = ?
            WHERE tenant_id = ? AND device_id = ? AND instance_id = ? AND block_id = ? AND state = 'pending'
            """,
            bindings: [
                .json(output), .integer(now), .text(commandID), .text(tenant.rawValue), .text(deviceID), .text(instanceID),
                .text(blockID),
            ])
    }

    public func enqueueCommand(
        _ command: NewCommand, resolving: (instanceID: String, blockID: String, output: JSONValue)?, now: Int64
    ) throws(SyncServerError) {
        try write {
            try expireApprovals(now: now)
            try insertCommand(command)
            if let resolving {
                try resolvePendingApproval(
                    tenant: command.tenant, deviceID: command.deviceID, instanceID: resolving.instanceID,
                    blockID: resolving.blockID, output: resolving.output, commandID: command.id, now: now)
            }
        }
    }

    public func commands(tenant: TenantID, deviceID: String?, limit: Int) throws(SyncServerError)
        -> ServerPage<CommandRecord>
    {
        try read {
            let filter = "tenant_id = ? AND (? IS NULL OR device_id = ?)"
            let bindings: [SQLiteValue] = [.text(tenant.rawValue), .optionalText(deviceID), .optionalText(deviceID)]
            let rows = try connection.query(
                "SELECT \(Self.commandColumns) FROM commands WHERE \(filter) ORDER BY seq DESC LIMIT ?",
                bindings: bindings + [.integer(Int64(limit))])
            let total = try count("SELECT count(*) FROM commands WHERE \(filter)", bindings)
            return ServerPage(items: rows.compactMap(Self.decodeCommand), total: total)
        }
    }

    // MARK: Telemetry

    public func recordTelemetry(_ events: [TelemetryEvent], keep: Int) throws(SyncServerError) {
        try write {
            var tenants: Set<TenantID> = []
            for event in events {
                tenants.insert(event.tenant)
                try connection.execute(
                    """
                    INSERT INTO telemetry_events(tenant_id, device_id, event_type, payload, timestamp, received_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                    bindings: [
                        .text(event.tenant.rawValue), .text(event.deviceID), .text(event.eventType), .json(event.payload),
                        .text(event.timestamp), .integer(event.receivedAt),
                    ])
            }
            for tenant in tenants {
                try connection.execute(
                    """
                    DELETE FROM telemetry_events WHERE tenant_id = ? AND seq <= (
                        SELECT seq FROM telemetry_events WHERE tenant_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)
                    """,
                    bindings: [.text(tenant.rawValue), .text(tenant.rawValue), .integer(Int64(keep))])
            }
        }
    }

    public func telemetry(tenant: TenantID, limit: Int) throws(SyncServerError) -> ServerPage<TelemetryEvent> {
        try read {
            let rows = try connection.query(
                """
                SELECT device_id, event_type, payload, timestamp, received_at FROM telemetry_events
                WHERE tenant_id = ? ORDER BY seq DESC LIMIT ?
                """,
                bindings: [.text(tenant.rawValue), .integer(Int64(limit))])
            let total = try count("SELECT count(*) FROM telemetry_events WHERE tenant_id = ?", [.text(tenant.rawValue)])
            let items = rows.map { row in
                TelemetryEvent(
                    deviceID: row[0].textValue ?? "", tenant: tenant, eventType: row[1].textValue ?? "",
                    payload: row[2].jsonValue, timestamp: row[3].textValue ?? "", receivedAt: row[4].int64Value ?? 0)
            }
            return ServerPage(items: items, total: total)
        }
    }
}

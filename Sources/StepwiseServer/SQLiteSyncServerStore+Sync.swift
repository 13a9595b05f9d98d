import StepwiseJSON
import StepwiseSQLite

extension SQLiteSyncServerStore {
    /// Deliveries without an acknowledgement after which a command yields its place to the
    /// newer ones (it is still delivered on every sync while the batch has room).
    static let stuckDeliveries = 3

    public func applySync(_ batch: SyncBatch, now: Int64) throws(SyncServerError) -> SyncDelivery {
        try write {
            try expireApprovals(now: now)
            let owner = try connection.queryValue(
                "SELECT tenant_id FROM devices WHERE device_id = ?", bindings: [.text(batch.deviceID)])
            guard owner?.textValue == batch.tenant.rawValue else {
                throw SyncServerError(.notFound, "device '\(batch.deviceID)' is not registered; register it first")
            }
            for status in batch.statuses {
                try upsertStatus(status)
            }
            for approval in batch.approvals {
                try insertApproval(approval)
            }
            for delegation in batch.delegations {
                try connection.execute(
                    """
                    INSERT INTO delegations(device_id, request_id, tenant_id, instance_id, block_id, handler, success, error,
                        command_id, received_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(device_id, request_id) DO NOTHING
                    """,
                    bindings: [
                        .text(batch.deviceID), .text(delegation.requestID), .text(batch.tenant.rawValue),
                        .text(delegation.instanceID), .text(delegation.blockID), .optionalText(delegation.handler),
                        .integer(delegation.succeeded ? 1 : 0), .optionalText(delegation.error),
                        .text(delegation.command.id), .integer(now),
                    ])
                if connection.changes == 1 {
                    try insertCommand(delegation.command)
                }
            }
            let scope: [SQLiteValue] = [.text(batch.deviceID), .text(batch.tenant.rawValue)]
            for id in batch.acks {
                try connection.execute(
                    "UPDATE commands SET acked_at = ? WHERE id = ? AND device_id = ? AND tenant_id = ? AND acked_at IS NULL",
                    bindings: [.integer(now), .text(id)] + scope)
            }
            for result in batch.results {
                try connection.execute(
                    """
                    UPDATE commands SET result_outcome = ?, result_instance_id = ?, result_error = ?, result_at = ?,
                        acked_at = coalesce(acked_at, ?)
                    WHERE id = ? AND device_id = ? AND tenant_id = ?
                    """,
                    bindings: [
                        .text(result.outcome), .optionalText(result.instanceID), .optionalText(result.error), .integer(now),
                        .integer(now), .text(result.id),
                    ] + scope)
            }
            let pendingFilter = "device_id = ? AND tenant_id = ? AND acked_at IS NULL AND expires_at > ?"
            // Oldest first, except commands delivered 3 times and still not acknowledged (a
            // device answering `retry`: at its instance limit, sequence not installed yet) go
            // after the others, so they cannot hold back, say, the cancel that would free a slot.
            let rows = try connection.query(
                "SELECT \(Self.commandColumns) FROM commands WHERE \(pendingFilter) ORDER BY delivery_count >= \(Self.stuckDeliveries), seq LIMIT ?",
                bindings: scope + [.integer(now), .integer(Int64(batch.deliveryLimit))])
            var delivered: [CommandRecord] = []
            var deliveredBytes = 0
            for row in rows {
                guard var record = Self.decodeCommand(row) else { continue }
                // Sealed payloads go out decrypted: about as long as their ciphertext.
                let bytes = max(JSONWriter.bytes(record.command.payload).count, record.command.sealedPayload?.count ?? 0) + 256
                if !delivered.isEmpty && deliveredBytes + bytes > batch.deliveryByteLimit { break }
                deliveredBytes += bytes
                try connection.execute(
                    """
                    UPDATE commands SET delivery_count = delivery_count + 1, last_delivered_at = ?,
                        first_delivered_at = coalesce(first_delivered_at, ?)
                    WHERE id = ?
                    """,
                    bindings: [.integer(now), .integer(now), .text(record.command.id)])
                record.deliveryCount += 1
                record.lastDeliveredAt = now
                delivered.append(record)
            }
            let pending = try count("SELECT count(*) FROM commands WHERE \(pendingFilter)", scope + [.integer(now)])
            try connection.execute(
                "UPDATE devices SET last_sync_at = ? WHERE device_id = ?", bindings: [.integer(now), .text(batch.deviceID)])
            return SyncDelivery(commands: delivered, pendingCount: pending)
        }
    }

    /// Upserts a status unless the stored one has a newer `timestamp`.
    func upsertStatus(_ status: InstanceStatusRecord) throws {
        try connection.execute(
            """
            INSERT INTO instance_statuses(device_id, instance_id, tenant_id, sequence_name, sequence_version, state,
                current_step, handler, steps, error, parent_instance_id, reported_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(device_id, instance_id) DO UPDATE SET
                sequence_name = excluded.sequence_name, sequence_version = excluded.sequence_version,
                state = excluded.state, current_step = excluded.current_step, handler = excluded.handler,
                steps = excluded.steps, error = excluded.error, parent_instance_id = excluded.parent_instance_id,
                reported_at = excluded.reported_at, updated_at = excluded.updated_at
            WHERE excluded.reported_at >= instance_statuses.reported_at
            """,
            bindings: [
                .text(status.deviceID), .text(status.instanceID), .text(status.tenant.rawValue), .text(status.sequenceName),
                .optionalInteger(status.sequenceVersion), .text(status.state), .optionalText(status.currentStep),
                .optionalText(status.handler), .json(status.steps), .json(status.error),
                .optionalText(status.parentInstanceID), .integer(status.reportedAt), .integer(status.updatedAt),
            ])
    }
}

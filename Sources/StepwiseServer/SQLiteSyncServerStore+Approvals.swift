public import StepwiseJSON
import StepwiseSQLite

extension SQLiteSyncServerStore {
    static let approvalColumns = """
        id, tenant_id, device_id, instance_id, block_id, sequence_name, prompt, choices, store_as, timeout_secs, metadata,
        state, resolution, command_id, created_at, expires_at, resolved_at
        """

    static func decodeApproval(_ row: [SQLiteValue]) -> ApprovalRecord? {
        guard let id = row[0].textValue, let tenant = row[1].textValue.flatMap(TenantID.init(rawValue:)),
            let device = row[2].textValue, let instance = row[3].textValue, let block = row[4].textValue,
            let state = row[11].textValue.flatMap(ApprovalState.init(rawValue:))
        else { return nil }
        return ApprovalRecord(
            id: id, deviceID: device, tenant: tenant, instanceID: instance, blockID: block, sequenceName: row[5].textValue,
            prompt: row[6].textValue, choices: row[7].jsonValue, storeAs: row[8].textValue, timeoutSeconds: row[9].int64Value,
            metadata: row[10].jsonValue, state: state, resolution: row[12].jsonValue, commandID: row[13].textValue,
            createdAt: row[14].int64Value ?? 0, expiresAt: row[15].int64Value ?? 0, resolvedAt: row[16].int64Value)
    }

    /// Inserts an approval unless one is pending for its (device, instance, block).
    func insertApproval(_ approval: ApprovalRecord) throws {
        try connection.execute(
            """
            INSERT INTO approvals(id, tenant_id, device_id, instance_id, block_id, sequence_name, prompt, choices, store_as,
                timeout_secs, metadata, state, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
            ON CONFLICT(device_id, instance_id, block_id) WHERE state = 'pending' DO NOTHING
            """,
            bindings: [
                .text(approval.id), .text(approval.tenant.rawValue), .text(approval.deviceID), .text(approval.instanceID),
                .text(approval.blockID), .optionalText(approval.sequenceName), .optionalText(approval.prompt),
                .json(approval.choices), .optionalText(approval.storeAs), .optionalInteger(approval.timeoutSeconds),
                .json(approval.metadata), .integer(approval.createdAt), .integer(approval.expiresAt),
            ])
    }

    public func approvals(tenant: TenantID, state: ApprovalState?, deviceID: String?, limit: Int, now: Int64)
        throws(SyncServerError) -> ServerPage<ApprovalRecord>
    {
        try write {
            try expireApprovals(now: now)
            let filter = "tenant_id = ? AND (? IS NULL OR state = ?) AND (? IS NULL OR device_id = ?)"
            let stateValue = SQLiteValue.optionalText(state?.rawValue)
            let deviceValue = SQLiteValue.optionalText(deviceID)
            let bindings: [SQLiteValue] = [.text(tenant.rawValue), stateValue, stateValue, deviceValue, deviceValue]
            let rows = try connection.query(
                "SELECT \(Self.approvalColumns) FROM approvals WHERE \(filter) ORDER BY created_at DESC, rowid DESC LIMIT ?",
                bindings: bindings + [.integer(Int64(limit))])
            let total = try count("SELECT count(*) FROM approvals WHERE \(filter)", bindings)
            return ServerPage(items: rows.compactMap(Self.decodeApproval), total: total)
        }
    }

    public func approval(_ id: String, tenant: TenantID, now: Int64) throws(SyncServerError) -> ApprovalRecord? {
        try write {
            try expireApprovals(now: now)
            return try connection.query(
                "SELECT \(Self.approvalColumns) FROM approvals WHERE id = ? AND tenant_id = ?",
                bindings: [.text(id), .text(tenant.rawValue)]
            ).first.flatMap(Self.decodeApproval)
        }
    }

    public func resolveApproval(_ id: String, tenant: TenantID, resolution: JSONValue, command: NewCommand, now: Int64)
        throws(SyncServerError) -> Bool
    {
        try write {
            try expireApprovals(now: now)
            try connection.execute(
                """
                UPDATE approvals SET state = 'resolved', resolution = ?, resolved_at = ?, command_id = ?
                WHERE id = ? AND tenant_id = ? AND state = 'pending'
                """,
                bindings: [.json(resolution), .integer(now), .text(command.id), .text(id), .text(tenant.rawValue)])
            guard connection.changes == 1 else { return false }
            try insertCommand(command)
            return true
        }
    }
}

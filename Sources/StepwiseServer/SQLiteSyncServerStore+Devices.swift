import StepwiseJSON
import StepwiseSQLite

extension SQLiteSyncServerStore {
    static let deviceColumns =
        "device_id, tenant_id, platform, app_version, push_token, active, registered_at, last_sync_at"

    static func decodeDevice(_ row: [SQLiteValue]) -> DeviceRecord? {
        guard let id = row[0].textValue, let tenant = row[1].textValue.flatMap(TenantID.init(rawValue:)) else { return nil }
        return DeviceRecord(
            deviceID: id, tenant: tenant, platform: row[2].textValue ?? "", appVersion: row[3].textValue,
            pushToken: row[4].textValue, isActive: row[5].int64Value == 1, registeredAt: row[6].int64Value ?? 0,
            lastSyncAt: row[7].int64Value)
    }

    public func registerDevice(_ registration: DeviceRegistration, tenant: TenantID, maxDevices: Int, now: Int64)
        throws(SyncServerError) -> RegistrationOutcome
    {
        try write {
            let owner = try connection.queryValue(
                "SELECT tenant_id FROM devices WHERE device_id = ?", bindings: [.text(registration.deviceID)])
            if let owner {
                guard owner.textValue == tenant.rawValue else {
                    throw SyncServerError(.conflict, "device '\(registration.deviceID)' is registered to another tenant")
                }
                try connection.execute(
                    """
                    UPDATE devices SET platform = ?, app_version = ?, push_token = ?, active = 1, updated_at = ?
                    WHERE device_id = ?
                    """,
                    bindings: [
                        .text(registration.platform), .optionalText(registration.appVersion),
                        .optionalText(registration.pushToken), .integer(now), .text(registration.deviceID),
                    ])
                return .updated
            }
            let existing = try count("SELECT count(*) FROM devices WHERE tenant_id = ?", [.text(tenant.rawValue)])
            guard existing < maxDevices else {
                throw SyncServerError(.conflict, "the tenant already has the maximum of \(maxDevices) devices")
            }
            try connection.execute(
                """
                INSERT INTO devices(device_id, tenant_id, platform, app_version, push_token, active, registered_at, updated_at)
                VALUES (?, ?, ?, ?, ?, 1, ?, ?)
                """,
                bindings: [
                    .text(registration.deviceID), .text(tenant.rawValue), .text(registration.platform),
                    .optionalText(registration.appVersion), .optionalText(registration.pushToken), .integer(now),
                    .integer(now),
                ])
            return .created
        }
    }

    public func device(_ deviceID: String, tenant: TenantID) throws(SyncServerError) -> DeviceRecord? {
        try read {
            try connection.query(
                "SELECT \(Self.deviceColumns) FROM devices WHERE device_id = ? AND tenant_id = ?",
                bindings: [.text(deviceID), .text(tenant.rawValue)]
            ).first.flatMap(Self.decodeDevice)
        }
    }

    public func devices(tenant: TenantID, limit: Int) throws(SyncServerError) -> ServerPage<DeviceRecord> {
        try read {
            let rows = try connection.query(
                """
                SELECT \(Self.deviceColumns) FROM devices WHERE tenant_id = ?
                ORDER BY registered_at DESC, rowid DESC LIMIT ?
                """,
                bindings: [.text(tenant.rawValue), .integer(Int64(limit))])
            let total = try count("SELECT count(*) FROM devices WHERE tenant_id = ?", [.text(tenant.rawValue)])
            return ServerPage(items: rows.compactMap(Self.decodeDevice), total: total)
        }
    }

    // MARK: Statuses

    static let statusColumns = """
        device_id, tenant_id, instance_id, sequence_name, sequence_version, state, current_step, handler, steps, error,
        parent_instance_id, reported_at, updated_at
        """

    static func decodeStatus(_ row: [SQLiteValue]) -> InstanceStatusRecord? {
        guard let device = row[0].textValue, let tenant = row[1].textValue.flatMap(TenantID.init(rawValue:)),
            let instance = row[2].textValue
        else { return nil }
        return InstanceStatusRecord(
            deviceID: device, tenant: tenant, instanceID: instance, sequenceName: row[3].textValue ?? "",
            sequenceVersion: row[4].int64Value, state: row[5].textValue ?? "", currentStep: row[6].textValue,
            handler: row[7].textValue, steps: row[8].jsonValue, error: row[9].jsonValue,
            parentInstanceID: row[10].textValue, reportedAt: row[11].int64Value ?? 0, updatedAt: row[12].int64Value ?? 0)
    }

    public func statuses(tenant: TenantID, deviceID: String?, limit: Int) throws(SyncServerError)
        -> ServerPage<InstanceStatusRecord>
    {
        try read {
            let filter = "tenant_id = ? AND (? IS NULL OR device_id = ?)"
            let bindings: [SQLiteValue] = [.text(tenant.rawValue), .optionalText(deviceID), .optionalText(deviceID)]
            let rows = try connection.query(
                "SELECT \(Self.statusColumns) FROM instance_statuses WHERE \(filter) ORDER BY updated_at DESC, rowid DESC LIMIT ?",
                bindings: bindings + [.integer(Int64(limit))])
            let total = try count("SELECT count(*) FROM instance_statuses WHERE \(filter)", bindings)
            return ServerPage(items: rows.compactMap(Self.decodeStatus), total: total)
        }
    }

    public func hasReported(instanceID: String, deviceID: String, tenant: TenantID) throws(SyncServerError) -> Bool {
        try read {
            let bindings: [SQLiteValue] = [.text(deviceID), .text(instanceID), .text(tenant.rawValue)]
            return try count(
                "SELECT count(*) FROM instance_statuses WHERE device_id = ? AND instance_id = ? AND tenant_id = ?", bindings) > 0
                || count("SELECT count(*) FROM approvals WHERE device_id = ? AND instance_id = ? AND tenant_id = ?", bindings) > 0
                || count("SELECT count(*) FROM delegations WHERE device_id = ? AND instance_id = ? AND tenant_id = ?", bindings) > 0
        }
    }
}

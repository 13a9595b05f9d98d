import StepwiseSQLite

extension SQLiteSyncServerStore {
    /// The schema history, keyed on `PRAGMA user_version`. Never edit a shipped migration:
    /// append one.
    static let migrator = SQLiteMigrator([
        SQLiteMigration(
            version: 1, name: "create sync server tables",
            sql: """
                CREATE TABLE tenants(
                    id TEXT PRIMARY KEY,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE api_keys(
                    key_hash TEXT PRIMARY KEY,
                    tenant_id TEXT REFERENCES tenants(id),
                    is_admin INTEGER NOT NULL CHECK (is_admin IN (0, 1)),
                    created_at INTEGER NOT NULL,
                    CHECK ((is_admin = 1) = (tenant_id IS NULL))
                );
                CREATE TABLE settings(
                    name TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );
                CREATE TABLE devices(
                    device_id TEXT PRIMARY KEY,
                    tenant_id TEXT NOT NULL REFERENCES tenants(id),
                    platform TEXT NOT NULL,
                    app_version TEXT,
                    push_token TEXT,
                    active INTEGER NOT NULL DEFAULT 1,
                    registered_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    last_sync_at INTEGER
                );
                CREATE INDEX devices_by_tenant ON devices(tenant_id, registered_at);
                CREATE TABLE instance_statuses(
                    device_id TEXT NOT NULL REFERENCES devices(device_id),
                    instance_id TEXT NOT NULL,
                    tenant_id TEXT NOT NULL,
                    sequence_name TEXT NOT NULL,
                    sequence_version INTEGER,
                    state TEXT NOT NULL,
                    current_step TEXT,
                    handler TEXT,
                    steps TEXT NOT NULL,
                    error TEXT NOT NULL,
                    parent_instance_id TEXT,
                    reported_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (device_id, instance_id)
                );
                CREATE INDEX statuses_by_tenant ON instance_statuses(tenant_id, updated_at);
                CREATE TABLE approvals(
                    id TEXT PRIMARY KEY,
                    tenant_id TEXT NOT NULL,
                    device_id TEXT NOT NULL REFERENCES devices(device_id),
                    instance_id TEXT NOT NULL,
                    block_id TEXT NOT NULL,
                    sequence_name TEXT,
                    prompt TEXT,
                    choices TEXT NOT NULL,
                    store_as TEXT,
                    timeout_secs INTEGER,
                    metadata TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'resolved', 'expired')),
                    resolution TEXT NOT NULL DEFAULT 'null',
                    command_id TEXT,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    resolved_at INTEGER
                );
                CREATE UNIQUE INDEX approvals_one_pending ON approvals(device_id, instance_id, block_id)
                    WHERE state = 'pending';
                CREATE INDEX approvals_by_tenant ON approvals(tenant_id, created_at);
                CREATE INDEX approvals_pending_expiry ON approvals(expires_at) WHERE state = 'pending';
                CREATE TABLE commands(
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    tenant_id TEXT NOT NULL,
                    device_id TEXT NOT NULL REFERENCES devices(device_id),
                    type TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    sealed_payload BLOB,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    delivery_count INTEGER NOT NULL DEFAULT 0,
                    first_delivered_at INTEGER,
                    last_delivered_at INTEGER,
                    acked_at INTEGER,
                    result_outcome TEXT,
                    result_instance_id TEXT,
                    result_error TEXT,
                    result_at INTEGER
                );
                CREATE INDEX commands_undelivered ON commands(device_id, seq) WHERE acked_at IS NULL;
                CREATE INDEX commands_by_tenant ON commands(tenant_id, seq);
                CREATE TABLE delegations(
                    device_id TEXT NOT NULL,
                    request_id TEXT NOT NULL,
                    tenant_id TEXT NOT NULL,
                    instance_id TEXT NOT NULL,
                    block_id TEXT NOT NULL,
                    handler TEXT,
                    success INTEGER NOT NULL,
                    error TEXT,
                    command_id TEXT NOT NULL,
                    received_at INTEGER NOT NULL,
                    PRIMARY KEY (device_id, request_id)
                );
                CREATE TABLE telemetry_events(
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    tenant_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    event_type TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    timestamp TEXT NOT NULL,
                    received_at INTEGER NOT NULL
                );
                CREATE INDEX telemetry_by_tenant ON telemetry_events(tenant_id, seq);
                """)
    ], identifyingTables: ["tenants", "api_keys", "devices", "commands"])
}

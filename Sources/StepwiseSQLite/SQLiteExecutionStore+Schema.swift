extension SQLiteExecutionStore {
    /// The schema, one migration per version; `PRAGMA user_version` records the applied one.
    static let migrator = SQLiteMigrator([
        SQLiteMigration(
            version: 1, name: "execution store",
            sql: """
                CREATE TABLE sequences (
                    name TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    bytes BLOB NOT NULL,
                    sha256 TEXT NOT NULL,
                    origin TEXT NOT NULL,
                    installed_at INTEGER NOT NULL,
                    deprecated INTEGER NOT NULL,
                    retired INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (name, version)
                ) WITHOUT ROWID;

                CREATE TABLE instances (
                    id TEXT PRIMARY KEY,
                    sequence_name TEXT NOT NULL,
                    sequence_version INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    data BLOB NOT NULL,
                    config BLOB NOT NULL,
                    outputs BLOB NOT NULL,
                    error BLOB,
                    cancel_requested INTEGER NOT NULL,
                    paused INTEGER NOT NULL,
                    parent_id TEXT,
                    parent_node INTEGER,
                    dedup_key TEXT,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    finished_at INTEGER,
                    lifetime_started_at INTEGER NOT NULL,
                    steps_executed INTEGER NOT NULL,
                    depth INTEGER NOT NULL,
                    random_seed INTEGER NOT NULL,
                    hooks TEXT NOT NULL,
                    next_node_id INTEGER NOT NULL,
                    FOREIGN KEY (sequence_name, sequence_version) REFERENCES sequences (name, version)
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX instances_live_dedup_key ON instances (dedup_key)
                    WHERE dedup_key IS NOT NULL AND finished_at IS NULL;
                CREATE INDEX instances_by_update ON instances (updated_at DESC, id);
                CREATE INDEX instances_by_parent ON instances (parent_id) WHERE parent_id IS NOT NULL;
                CREATE INDEX instances_by_sequence ON instances (sequence_name, sequence_version);

                CREATE TABLE nodes (
                    instance_id TEXT NOT NULL,
                    node_id INTEGER NOT NULL,
                    parent INTEGER,
                    block_index INTEGER NOT NULL,
                    list INTEGER NOT NULL,
                    position INTEGER NOT NULL,
                    iteration INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    phase TEXT NOT NULL,
                    attempt INTEGER NOT NULL,
                    due_at INTEGER,
                    started_at INTEGER,
                    finished_at INTEGER,
                    error BLOB,
                    progress BLOB,
                    PRIMARY KEY (instance_id, node_id)
                ) WITHOUT ROWID;

                CREATE TABLE journal (
                    seq INTEGER PRIMARY KEY,
                    instance_id TEXT NOT NULL,
                    node_id INTEGER,
                    kind TEXT NOT NULL,
                    step_id TEXT,
                    attempt INTEGER,
                    at INTEGER NOT NULL,
                    payload BLOB NOT NULL
                );
                CREATE INDEX journal_by_instance ON journal (instance_id, seq);

                CREATE TABLE metadata (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                ) WITHOUT ROWID;
                """),
        SQLiteMigration(
            version: 2, name: "dead letters",
            sql: """
                CREATE TABLE dead_letters (
                    id TEXT PRIMARY KEY,
                    instance_id TEXT NOT NULL,
                    sequence_name TEXT NOT NULL,
                    sequence_version INTEGER NOT NULL,
                    block_id TEXT,
                    handler TEXT,
                    error BLOB NOT NULL,
                    attempts INTEGER NOT NULL,
                    failed_at INTEGER NOT NULL,
                    acknowledged INTEGER NOT NULL,
                    acknowledged_at INTEGER,
                    redriven_at INTEGER
                ) WITHOUT ROWID;
                CREATE INDEX dead_letters_by_time ON dead_letters (failed_at DESC, id);
                CREATE INDEX dead_letters_by_instance ON dead_letters (instance_id);
                CREATE INDEX instances_by_finish ON instances (finished_at) WHERE finished_at IS NOT NULL;
                """),
        SQLiteMigration(
            version: 3, name: "sync outbox and command markers",
            sql: """
                CREATE TABLE outbox (
                    kind TEXT NOT NULL,
                    key TEXT NOT NULL,
                    instance_id TEXT,
                    generation INTEGER NOT NULL DEFAULT 1,
                    payload BLOB,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (kind, key)
                ) WITHOUT ROWID;
                CREATE INDEX outbox_by_age ON outbox (kind, created_at, key);
                CREATE INDEX outbox_by_instance ON outbox (instance_id);
                ALTER TABLE instances ADD COLUMN precompleted BLOB;
                CREATE TABLE command_markers (
                    command_id TEXT PRIMARY KEY,
                    outcome TEXT NOT NULL,
                    executed_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                """),
        // Instance rows hold the whole context.data and outputs JSON, rewritten by every step.
        // In a WITHOUT ROWID table a row spills to overflow pages past ~1 KB (a quarter of a
        // page), so each step rewrote and re-allocated overflow pages; a rowid table keeps rows
        // up to ~4 KB on their leaf page, about half the pages per step.
        SQLiteMigration(
            version: 4, name: "instances as a rowid table",
            sql: """
                CREATE TABLE instances_v4 (
                    id TEXT NOT NULL PRIMARY KEY,
                    sequence_name TEXT NOT NULL,
                    sequence_version INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    data BLOB NOT NULL,
                    config BLOB NOT NULL,
                    outputs BLOB NOT NULL,
                    error BLOB,
                    cancel_requested INTEGER NOT NULL,
                    paused INTEGER NOT NULL,
                    parent_id TEXT,
                    parent_node INTEGER,
                    dedup_key TEXT,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    finished_at INTEGER,
                    lifetime_started_at INTEGER NOT NULL,
                    steps_executed INTEGER NOT NULL,
                    depth INTEGER NOT NULL,
                    random_seed INTEGER NOT NULL,
                    hooks TEXT NOT NULL,
                    next_node_id INTEGER NOT NULL,
                    precompleted BLOB,
                    FOREIGN KEY (sequence_name, sequence_version) REFERENCES sequences (name, version)
                );
                INSERT INTO instances_v4 (
                    id, sequence_name, sequence_version, state, data, config, outputs, error, cancel_requested, paused,
                    parent_id, parent_node, dedup_key, created_at, updated_at, finished_at, lifetime_started_at,
                    steps_executed, depth, random_seed, hooks, next_node_id, precompleted)
                SELECT
                    id, sequence_name, sequence_version, state, data, config, outputs, error, cancel_requested, paused,
                    parent_id, parent_node, dedup_key, created_at, updated_at, finished_at, lifetime_started_at,
                    steps_executed, depth, random_seed, hooks, next_node_id, precompleted
                FROM instances ORDER BY created_at, id;
                DROP TABLE instances;
                ALTER TABLE instances_v4 RENAME TO instances;
                CREATE UNIQUE INDEX instances_live_dedup_key ON instances (dedup_key)
                    WHERE dedup_key IS NOT NULL AND finished_at IS NULL;
                CREATE INDEX instances_by_update ON instances (updated_at DESC, id);
                CREATE INDEX instances_by_parent ON instances (parent_id) WHERE parent_id IS NOT NULL;
                CREATE INDEX instances_by_sequence ON instances (sequence_name, sequence_version);
                CREATE INDEX instances_by_finish ON instances (finished_at) WHERE finished_at IS NOT NULL;
                """),
        // A step's commit used to write an instance row, node rows, journal rows and their index
        // entries: six B-tree pages, each written whole to the WAL. Commits now append one
        // record here (one page) and the rows are written later, coalesced (SQLiteChangeLog).
        SQLiteMigration(
            version: 5, name: "change log",
            sql: """
                CREATE TABLE change_log (
                    seq INTEGER PRIMARY KEY,
                    last_journal_seq INTEGER NOT NULL,
                    body BLOB NOT NULL
                );
                """),
        // Journal entries as chunks: one row per instance per commit or fold (see
        // SQLiteExecutionStore+Journal). Rows already in `journal` stay there and are read too.
        SQLiteMigration(
            version: 6, name: "journal chunks",
            sql: """
                CREATE TABLE journal_chunks (
                    first_seq INTEGER PRIMARY KEY,
                    last_seq INTEGER NOT NULL,
                    instance_id TEXT NOT NULL,
                    entries BLOB NOT NULL
                );
                CREATE INDEX journal_chunks_by_instance ON journal_chunks (instance_id, first_seq);
                CREATE INDEX journal_chunks_by_last ON journal_chunks (last_seq);
                """),
    ], identifyingTables: ["sequences", "instances", "nodes", "metadata"])
}

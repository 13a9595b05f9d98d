@_exported public import StepwiseCrypto
@_exported public import StepwiseExecution
@_exported public import StepwiseExpressions
@_exported public import StepwiseJSON
@_exported public import StepwiseSQLite
@_exported public import StepwiseSequences
@_exported public import StepwiseSync

extension StepwiseEngine {
    /// Opens (or creates) the SQLite database at `databasePath`, migrates it, and resumes every
    /// unfinished instance; nothing is dispatched until the engine runs.
    ///
    /// ```swift
    /// let engine = try StepwiseEngine(databasePath: "stepwise.db")
    /// ```
    ///
    /// With `syncUrl` configured, the sync channel (``SyncChannel``) is attached.
    ///
    /// - Throws: ``StepwiseError`` `invalidInput` (configuration), `storage` (the file cannot
    ///   be opened, is not a database, is corrupt, or was written by a newer version) or `timeout`
    ///   (another process held the database lock for longer than `operationTimeoutMs`).
    public init(
        databasePath: String, configuration: EngineConfiguration = EngineConfiguration(),
        clock: any EngineClock = SystemClock(), randomSeed: UInt64? = nil
    ) throws(StepwiseError) {
        try configuration.validate()
        // operationTimeoutMs bounds how long a call waits for another process's database lock.
        let store = try SQLiteExecutionStore(
            path: databasePath, durability: configuration.durability,
            busyTimeoutMs: Int(clamping: configuration.operationTimeoutMs))
        let channel = configuration.syncUrl.isEmpty ? nil : try SyncChannel(configuration: configuration)
        try self.init(store: store, configuration: configuration, clock: clock, randomSeed: randomSeed, syncChannel: channel)
    }
}

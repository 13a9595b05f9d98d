import StepwiseExecution

/// What an ``SQLiteExecutionStore`` remembers of an instance row it wrote or read: that it is
/// stored (an update cannot fail the id constraint) and the values an update may not change
/// without a direct write.
struct StoredInstanceRow {
    /// The live dedup key: setting another one must be checked by the unique index.
    var dedupKey: String?
    /// Whether the instance is finished (and its hooks too): such rows are not remembered
    /// once the change log is folded, so memory follows the live instances.
    var isFinished: Bool

    init(_ record: InstanceRecord) {
        dedupKey = record.dedupKey
        isFinished = record.state.isTerminal && record.hooks != .running
    }
}

import StepwiseJSON

/// One page of a listing with the cursor of the next page.
public struct Page<Item: Sendable>: Sendable {
    /// The items of this page.
    public let items: [Item]
    /// Pass to the next call to continue; `nil` on the last page.
    public let nextCursor: String?
}

/// A short description of an instance for lists (SEMANTICS §6.3).
public struct InstanceSummary: Sendable, Hashable {
    /// The instance id.
    public let instanceId: InstanceID
    /// Sequence name.
    public let sequenceName: String
    /// Pinned version.
    public let sequenceVersion: Int
    /// State.
    public let state: InstanceState
    /// Current step, when known.
    public let currentStep: String?
    /// Created, Unix ms.
    public let createdAt: Int64
    /// Last change, Unix ms.
    public let updatedAt: Int64
    /// The parent of a child instance.
    public let parentInstanceId: InstanceID?
    /// The error message of a failed instance.
    public let error: String?
}

extension StepwiseEngine {
    /// Instances matching `filter`, most recently updated first, then by id.
    ///
    /// - Parameters:
    ///   - limit: 1…500 (default 100).
    ///   - after: the `nextCursor` of the previous page.
    /// - Throws: ``StepwiseError`` `invalidInput` (limit or cursor), `storage`, `shutdown`.
    public func instances(
        filter: InstanceFilter = InstanceFilter(), limit: Int = 100, after cursor: String? = nil
    ) throws(StepwiseError) -> Page<InstanceSummary> {
        try checkOpen()
        guard (1...500).contains(limit) else { throw StepwiseError(.invalidInput, "limit \(limit) is outside 1…500") }
        var position: InstanceCursor?
        if let cursor {
            guard let parsed = InstanceCursor(token: cursor) else {
                throw StepwiseError(.invalidInput, "cursor '\(cursor)' is not valid")
            }
            position = parsed
        }
        let records = try store.instances(matching: filter, limit: limit + 1, after: position)
        let page = records.prefix(limit).map(summary(of:))
        let next = records.count > limit ? records[limit - 1] : nil
        return Page(
            items: page,
            nextCursor: next.map { InstanceCursor(updatedAt: $0.updatedAt, id: $0.id).token })
    }

    /// Every non-terminal instance, most recently updated first.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    public func activeInstances() throws(StepwiseError) -> [InstanceSummary] {
        try checkOpen()
        return live.values.filter { !$0.record.state.isTerminal }
            .sorted { ($0.record.updatedAt, $1.id.rawValue) > ($1.record.updatedAt, $0.id.rawValue) }
            .map { summary(of: $0.record) }
    }

    func summary(of record: InstanceRecord) -> InstanceSummary {
        var current: String?
        if let runtime = live[record.id] { current = snapshot(of: runtime).currentStep }
        return InstanceSummary(
            instanceId: record.id, sequenceName: record.sequence.name, sequenceVersion: record.sequence.version,
            state: record.state, currentStep: current, createdAt: record.createdAt, updatedAt: record.updatedAt,
            parentInstanceId: record.parentInstance, error: record.error?.message)
    }
}

import StepwiseJSON

/// Where the engine keeps everything durable: sequences, instances, nodes and the journal.
///
/// The engine is the only writer and calls a store from one task at a time, so implementations
/// need no locking of their own and are not required to be `Sendable`. Every ``commit(_:)`` is
/// one atomic transaction: either all of a batch is durable or none of it.
public protocol ExecutionStore: AnyObject {
    /// Every stored sequence version, without its bytes.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func storedSequences() throws(StepwiseError) -> [StoredSequence]

    /// The document bytes of a stored version, or `nil`.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func sequenceBytes(_ key: SequenceKey) throws(StepwiseError) -> [UInt8]?

    /// Every instance that is not terminal, or whose hook list still runs, with its nodes.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func loadLiveInstances() throws(StepwiseError) -> [(InstanceRecord, [Node])]

    /// One instance with its nodes, or `nil`.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func loadInstance(_ id: InstanceID) throws(StepwiseError) -> (InstanceRecord, [Node])?

    /// Whether an instance with this id is stored, whatever its state.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func containsInstance(_ id: InstanceID) throws(StepwiseError) -> Bool

    /// The live instance holding `dedupKey`, if any.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func instanceHolding(dedupKey: String) throws(StepwiseError) -> InstanceID?

    /// The journal of one instance in commit order.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func journal(of instance: InstanceID) throws(StepwiseError) -> [JournalEntry]

    /// Journal entries after `sequence`, oldest first, at most `limit`.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func journal(after sequence: Int64, limit: Int) throws(StepwiseError) -> [JournalEntry]

    /// The highest journal sequence number committed, or 0 when the journal is empty.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func lastJournalSequence() throws(StepwiseError) -> Int64

    /// Instance summaries matching `filter`, most recently updated first, after `cursor`.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func instances(matching filter: InstanceFilter, limit: Int, after cursor: InstanceCursor?) throws(StepwiseError)
        -> [InstanceRecord]

    /// A small persisted value (cursors, device context).
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func metadata(_ key: String) throws(StepwiseError) -> String?

    /// Dead letters, newest first, after the record with id `after`.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func deadLetters(unacknowledgedOnly: Bool, limit: Int, after: String?) throws(StepwiseError) -> [DeadLetter]

    /// One dead letter, or `nil`.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func deadLetter(_ id: String) throws(StepwiseError) -> DeadLetter?

    /// Every dead letter of one instance (one per failure), newest first.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func deadLetters(ofInstance id: InstanceID) throws(StepwiseError) -> [DeadLetter]

    /// Terminal root instances finished before `cutoff` (Unix ms) that GC may delete: no
    /// unacknowledged dead letter, hooks finished. At most `limit`.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func expiredInstances(finishedBefore cutoff: Int64, limit: Int) throws(StepwiseError) -> [InstanceID]

    /// Whether any instance row (live or terminal, not yet collected) pins this version.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func isReferenced(_ key: SequenceKey) throws(StepwiseError) -> Bool

    /// Outbox rows of `kind`, oldest first, at most `limit`.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func outboxRows(_ kind: OutboxKind, limit: Int) throws(StepwiseError) -> [OutboxRow]

    /// The recorded outcome of a command id, if it was executed.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    func commandMarker(_ commandID: String) throws(StepwiseError) -> String?

    /// Applies a batch atomically.
    ///
    /// - Throws: ``StepwiseError`` `storage` (nothing of the batch is applied) or `conflict` when a
    ///   unique constraint (a live dedup key, an existing instance id) refuses it.
    func commit(_ batch: StoreBatch) throws(StepwiseError)

    /// Does all deferred storage work now: the engine calls it when it pauses, shuts down or
    /// ends a background window. What was committed is durable either way; a store that defers
    /// nothing does nothing.
    ///
    /// - Throws: ``StepwiseError`` `storage`; the deferred work stays and is retried.
    func settle() throws(StepwiseError)

    /// Does the deferred work worth doing at a moment the engine has nothing to run (it may be
    /// busy again a moment later): for example when enough has piled up. ``settle()`` does all
    /// of it.
    ///
    /// - Throws: ``StepwiseError`` `storage`; the deferred work stays and is retried.
    func idle() throws(StepwiseError)
}

extension ExecutionStore {
    /// Loads the instance to find out.
    public func containsInstance(_ id: InstanceID) throws(StepwiseError) -> Bool { try loadInstance(id) != nil }

    /// Nothing is deferred by default.
    public func settle() throws(StepwiseError) {}

    /// Reads the journal page by page to its end (a store can answer directly).
    public func lastJournalSequence() throws(StepwiseError) -> Int64 {
        var last: Int64 = 0
        while let entry = try journal(after: last, limit: 5_000).last { last = entry.sequence }
        return last
    }

    /// Nothing is deferred by default.
    public func idle() throws(StepwiseError) {}
}

/// A stored sequence version's metadata.
public struct StoredSequence: Sendable, Hashable {
    /// Name and version.
    public let key: SequenceKey
    /// Whether it is deprecated (never chosen as latest).
    public var isDeprecated: Bool
    /// Where it came from: `local` or `manifest`.
    public var origin: String
    /// Lowercase hex SHA-256 of the bytes.
    public var sha256: String
    /// When it was stored, Unix ms.
    public var installedAt: Int64
    /// Whether a manifest retired it.
    public var isRetired: Bool

    /// Creates metadata.
    public init(key: SequenceKey, isDeprecated: Bool, origin: String, sha256: String, installedAt: Int64, isRetired: Bool = false) {
        self.key = key
        self.isDeprecated = isDeprecated
        self.origin = origin
        self.sha256 = sha256
        self.installedAt = installedAt
        self.isRetired = isRetired
    }
}

/// Everything one transition pass writes.
public struct StoreBatch: Sendable {
    /// New sequence versions with their bytes.
    public var sequences: [(StoredSequence, [UInt8])] = []
    /// Instance rows to insert or replace.
    public var instances: [InstanceRecord] = []
    /// Node rows to insert or replace, per instance.
    public var nodes: [(InstanceID, [Node])] = []
    /// Journal entries to append, in order.
    public var journal: [JournalEntry] = []
    /// Instances (with their nodes and journal) to delete.
    public var deletedInstances: [InstanceID] = []
    /// Metadata to set.
    public var metadata: [(String, String)] = []
    /// Dead letters to insert or replace.
    public var deadLetters: [DeadLetter] = []
    /// Dead letters to delete.
    public var deletedDeadLetters: [String] = []
    /// Stored sequence versions to delete (never one still referenced).
    public var deletedSequences: [SequenceKey] = []
    /// Outbox changes and command markers.
    public var outbox: [OutboxWrite] = []
    /// Command markers executed before this time (Unix ms) to delete (SYNC.md §2.6: kept 30 days).
    public var pruneCommandMarkersBefore: Int64?
    /// The engine clock when the batch was built, Unix ms.
    public var now: Int64 = 0
    /// For instances in ``instances``: which members of their objects changed since their
    /// previous commit. An instance without an entry changed whole.
    public var objectChanges: [InstanceID: InstanceObjectChanges] = [:]

    /// An empty batch.
    public init() {}

    /// Whether the batch writes nothing.
    public var isEmpty: Bool {
        sequences.isEmpty && instances.isEmpty && nodes.isEmpty && journal.isEmpty && deletedInstances.isEmpty
            && metadata.isEmpty && deadLetters.isEmpty && deletedDeadLetters.isEmpty && deletedSequences.isEmpty
            && outbox.isEmpty && pruneCommandMarkersBefore == nil
    }
}

/// Which members of an instance's `data`, `config` and `outputs` changed since its previous
/// commit, as the engine tracked them: a store may write those members instead of the objects.
///
/// Each is the set of keys set (to a new value, or appended) in that object; `nil` when the
/// object changed in any other way (members removed or reordered, replaced whole), and then the
/// whole object must be written.
public struct InstanceObjectChanges: Sendable, Hashable {
    /// Keys set in `data`, or `nil`.
    public var data: Set<String>? = []
    /// Keys set in `config`, or `nil`.
    public var config: Set<String>? = []
    /// Keys set in `outputs`, or `nil`.
    public var outputs: Set<String>? = []

    /// No changes.
    public init() {}

    /// Every object changed whole.
    public static let whole: InstanceObjectChanges = {
        var changes = InstanceObjectChanges()
        changes.data = nil
        changes.config = nil
        changes.outputs = nil
        return changes
    }()
}

/// Which instances a listing returns.
public struct InstanceFilter: Sendable, Hashable {
    /// Only these states (empty: all).
    public var states: Set<InstanceState>
    /// Only this sequence name.
    public var sequenceName: String?
    /// Only children of this instance.
    public var parent: InstanceID?

    /// Creates a filter.
    public init(states: Set<InstanceState> = [], sequenceName: String? = nil, parent: InstanceID? = nil) {
        self.states = states
        self.sequenceName = sequenceName
        self.parent = parent
    }
}

/// A position in an instance listing: the last row of the previous page.
public struct InstanceCursor: Sendable, Hashable {
    /// `updatedAt` of the last row.
    public let updatedAt: Int64
    /// Id of the last row.
    public let id: InstanceID

    /// Creates a cursor.
    public init(updatedAt: Int64, id: InstanceID) {
        self.updatedAt = updatedAt
        self.id = id
    }

    /// The opaque text form handed to hosts.
    public var token: String { "\(updatedAt)_\(id.rawValue)" }

    /// Parses the text form.
    public init?(token: String) {
        let parts = token.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let t = Int64(parts[0]), let id = InstanceID(rawValue: String(parts[1])) else { return nil }
        self.init(updatedAt: t, id: id)
    }
}

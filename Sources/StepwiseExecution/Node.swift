public import StepwiseJSON

/// One node of an instance's execution tree: one block in one iteration.
///
/// Nodes are created when their list reaches them, so blocks that never started have no node.
/// The fixed fields locate the node; `state`, `phase`, `attempt`, `dueAt` and `progress` change
/// with each transition and are persisted with it.
public struct Node: Sendable, Hashable {
    /// The node's id (its index in the tree).
    public let id: NodeID
    /// The parent node; `nil` only for the root.
    public let parent: NodeID?
    /// The block index in the program (``SequenceProgram/rootIndex`` for the root).
    public let blockIndex: Int
    /// Which child list of the parent this node belongs to.
    public let list: Int
    /// The position in that list.
    public let position: Int
    /// The iteration of the parent's list (loop pass or for_each index); 0 elsewhere.
    public let iteration: Int
    /// The node's state.
    public var state: NodeState
    /// What a non-terminal node is doing.
    public var phase: NodePhase
    /// Handler attempts started (steps); escalation calls are counted separately.
    public var attempt: Int
    /// Deadline of the node's timer (delay, backoff, poll, handler or wait timeout), Unix ms.
    public var dueAt: Int64?
    /// When the node started, Unix ms.
    public var startedAt: Int64?
    /// When the node finished, Unix ms.
    public var finishedAt: Int64?
    /// The failure, for failed nodes.
    public var error: NodeError?
    /// Block-specific progress.
    public var progress: NodeProgress

    /// Whether the node is an escalation waiting for its handler to be registered (escalating,
    /// no call made, `waiting`).
    var isAwaitingEscalationHandler: Bool {
        phase == .escalating && progress.idempotencyKey == nil && state == .waiting
    }

    /// Creates a pending node.
    public init(id: NodeID, parent: NodeID?, blockIndex: Int, list: Int, position: Int, iteration: Int) {
        self.id = id
        self.parent = parent
        self.blockIndex = blockIndex
        self.list = list
        self.position = position
        self.iteration = iteration
        state = .pending
        phase = .idle
        attempt = 0
        progress = NodeProgress()
    }

    /// Restores a node read from storage.
    public init(
        id: NodeID, parent: NodeID?, blockIndex: Int, list: Int, position: Int, iteration: Int, state: NodeState,
        phase: NodePhase, attempt: Int, dueAt: Int64?, startedAt: Int64?, finishedAt: Int64?, error: NodeError?,
        progress: NodeProgress
    ) {
        self.id = id
        self.parent = parent
        self.blockIndex = blockIndex
        self.list = list
        self.position = position
        self.iteration = iteration
        self.state = state
        self.phase = phase
        self.attempt = attempt
        self.dueAt = dueAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.error = error
        self.progress = progress
    }
}

/// What a non-terminal node is doing; persisted so recovery knows how to resume it.
public enum NodePhase: String, Sendable, Hashable, CaseIterable {
    /// Nothing yet (pending) or nothing left (terminal).
    case idle
    /// A step's `delay` timer runs.
    case delaying
    /// A step waits for its `run_when` device conditions.
    case awaitingConditions
    /// A step waits for its handler to be registered.
    case awaitingHandler
    /// A step is runnable and waits for a free handler slot.
    case queued
    /// A step's handler call is in flight (dispatch record committed).
    case inFlight
    /// A step waits out a retry backoff.
    case backoff
    /// A step's `wait_for_input` is open.
    case awaitingInput
    /// A step's escalation handler is queued or in flight.
    case escalating
    /// The built-in `sleep` handler's durable timer runs.
    case sleeping
    /// A composite runs its children.
    case active
    /// A loop waits out its `poll_interval`.
    case polling
    /// A sub_sequence waits for its child instance.
    case awaitingChild
    /// A step's attempt waits for the sync server to resolve its `credentials://` params.
    case delegated
    /// The root only: the main list finished while the instance was paused by signal; the
    /// outcome (the root's error when it failed) is applied at `resume` (SEMANTICS §2.1: a
    /// paused instance stays `paused` until resumed).
    case finishedWhilePaused
}

/// Block-specific progress of a node, persisted as JSON.
///
/// Only the fields of the node's block type are used.
public struct NodeProgress: Sendable, Hashable {
    // step
    /// The jitter drawn for the delay, once.
    public var jitterMs: Int64?
    /// Whether the delay has elapsed.
    public var delayDone = false
    /// The resolved params of the current attempt.
    public var params: JSONValue?
    /// The idempotency key of the current attempt.
    public var idempotencyKey: String?
    /// When the current attempt started, Unix ms.
    public var attemptStartedAt: Int64?
    /// The open wait's id.
    public var waitID: String?
    /// When the open `wait_for_input` wait opened (the handler's success), in ms.
    public var waitOpenedAt: Int64?
    /// Escalation calls made.
    public var escalations = 0
    /// Attempt number at which the current retry budget started (redrive resets the budget).
    public var budgetStart = 0
    /// The open delegation's request id while the attempt's `credentials://` params are
    /// resolved by the server, kept while the attempt runs with the secrets (which live only in
    /// memory, so a restart delegates the attempt again).
    public var delegationRequestID: String?

    // router, a_b_split
    /// The chosen list (router route or default; a_b_split variant); `nil` when none.
    public var chosenList: Int?

    // parallel, race
    /// Per-branch outcome: nil running, else the outcome.
    public var branchOutcomes: [BranchOutcome?] = []

    // loop
    /// Finished passes.
    public var iterations = 0

    // for_each
    /// The snapshot of the collection.
    public var items: [JSONValue]?
    /// The next index to start.
    public var nextIndex = 0
    /// Iterations running.
    public var activeIterations: [Int] = []

    // try_catch: 0 try, 1 catch, 2 finally
    /// The current phase list.
    public var tryPhase = 0
    /// The error that will fail the block after finally, if any.
    public var pendingError: NodeError?
    /// Whether the block was cancelled and only runs finally.
    public var cancelledDuringTry = false

    // sub_sequence
    /// The child instance.
    public var childInstance: String?

    /// Empty progress.
    public init() {}
}

/// How one branch of a parallel or race ended.
public struct BranchOutcome: Sendable, Hashable {
    /// `completed`, `failed` or `cancelled`.
    public var state: NodeState
    /// The branch's error.
    public var error: NodeError?
    /// When it ended, Unix ms.
    public var at: Int64
    /// Whether the branch was empty (never wins a race).
    public var wasEmpty: Bool

    /// Creates an outcome.
    public init(state: NodeState, error: NodeError? = nil, at: Int64, wasEmpty: Bool = false) {
        self.state = state
        self.error = error
        self.at = at
        self.wasEmpty = wasEmpty
    }
}

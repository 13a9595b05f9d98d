public import StepwiseExpressions

/// A `router`: the first route whose condition is truthy on entry runs, else `default`.
public struct RouterBlock: Sendable {
    /// One conditional branch.
    public struct Route: Sendable {
        /// The condition, evaluated once on entry.
        public let condition: Expression
        /// The blocks run when chosen (may be empty).
        public let blocks: [Block]
        /// Creates a route.
        public init(condition: Expression, blocks: [Block]) {
            self.condition = condition
            self.blocks = blocks
        }
    }
    /// Routes in evaluation order.
    public let routes: [Route]
    /// Blocks run when no route matches; `nil` when absent.
    public let defaultBlocks: [Block]?
    /// Creates a router.
    public init(routes: [Route], defaultBlocks: [Block]?) {
        self.routes = routes
        self.defaultBlocks = defaultBlocks
    }
}

/// A `parallel`: every branch runs concurrently.
public struct ParallelBlock: Sendable {
    /// The branches, each a list.
    public let branches: [[Block]]
    /// Whether the first branch failure cancels the others.
    public let failFast: Bool
    /// Creates a parallel.
    public init(branches: [[Block]], failFast: Bool = false) {
        self.branches = branches
        self.failFast = failFast
    }
}

/// A `race`: branches run concurrently; the first winner ends it.
public struct RaceBlock: Sendable {
    /// What decides the race.
    public enum Semantics: String, Sendable, Hashable, CaseIterable {
        /// The first branch to finish decides, success or failure.
        case firstToResolve = "first_to_resolve"
        /// The first branch to succeed wins; failures count only when all failed.
        case firstToSucceed = "first_to_succeed"
    }
    /// The branches, each a list.
    public let branches: [[Block]]
    /// The race's semantics.
    public let semantics: Semantics
    /// Creates a race.
    public init(branches: [[Block]], semantics: Semantics = .firstToResolve) {
        self.branches = branches
        self.semantics = semantics
    }
}

/// A `loop`: runs its body while the condition holds, up to `max_iterations`.
public struct LoopBlock: Sendable {
    /// Checked before each iteration.
    public let condition: Expression
    /// The body, run as a list per iteration.
    public let body: [Block]
    /// Iteration cap (hitting it is success).
    public let maxIterations: Int
    /// Checked after each successful pass; truthy ends the loop.
    public let breakOn: Expression?
    /// Whether a failed pass counts and the loop goes on.
    public let continueOnError: Bool
    /// Durable pause after each pass, in seconds.
    public let pollIntervalSeconds: Int64?
    /// Creates a loop.
    public init(
        condition: Expression, body: [Block], maxIterations: Int = 1000, breakOn: Expression? = nil,
        continueOnError: Bool = false, pollIntervalSeconds: Int64? = nil
    ) {
        self.condition = condition
        self.body = body
        self.maxIterations = maxIterations
        self.breakOn = breakOn
        self.continueOnError = continueOnError
        self.pollIntervalSeconds = pollIntervalSeconds
    }
}

/// A `for_each`: runs its body once per element of a collection snapshot.
public struct ForEachBlock: Sendable {
    /// Where the collection comes from.
    public enum Collection: Sendable {
        /// A dotted path relative to `context.data` (prefix `context.data.`/`data.` stripped).
        case path([String])
        /// A whole `{{ … }}` template.
        case template(Template)
    }
    /// The collection as written.
    public let collectionText: String
    /// The compiled collection source.
    public let collection: Collection
    /// The `context.data` key bound to each element.
    public let itemVariable: String
    /// The `context.data` key bound to each index, if any.
    public let indexVariable: String?
    /// The body, run as a list per element.
    public let body: [Block]
    /// Snapshot truncation.
    public let maxIterations: Int
    /// Iterations allowed at once.
    public let maxConcurrency: Int
    /// Creates a for_each.
    public init(
        collectionText: String, collection: Collection, itemVariable: String = "item", indexVariable: String? = nil,
        body: [Block], maxIterations: Int = 1000, maxConcurrency: Int = 1
    ) {
        self.collectionText = collectionText
        self.collection = collection
        self.itemVariable = itemVariable
        self.indexVariable = indexVariable
        self.body = body
        self.maxIterations = maxIterations
        self.maxConcurrency = maxConcurrency
    }
}

/// A `try_catch`: try, then catch on failure, then finally always.
public struct TryCatchBlock: Sendable {
    /// The protected list.
    public let tryBlocks: [Block]
    /// Run on failure with `_error` set; `[]` swallows; `nil` means try/finally.
    public let catchBlocks: [Block]?
    /// Always run last.
    public let finallyBlocks: [Block]?
    /// Creates a try_catch.
    public init(tryBlocks: [Block], catchBlocks: [Block]?, finallyBlocks: [Block]?) {
        self.tryBlocks = tryBlocks
        self.catchBlocks = catchBlocks
        self.finallyBlocks = finallyBlocks
    }
}

/// A `sub_sequence`: runs another stored sequence as a child instance.
public struct SubSequenceBlock: Sendable {
    /// The target's name.
    public let sequenceName: String
    /// The target's version; `nil` means the latest non-deprecated one.
    public let version: Int?
    /// The child's initial `context.data`, with templates.
    public let input: TemplatedValue
    /// Creates a sub_sequence.
    public init(sequenceName: String, version: Int?, input: TemplatedValue) {
        self.sequenceName = sequenceName
        self.version = version
        self.input = input
    }
}

/// An `a_b_split`: one variant chosen by the SHA-256 rule of SEMANTICS §2.8.
public struct ABSplitBlock: Sendable {
    /// One weighted variant.
    public struct Variant: Sendable {
        /// Its name, reported as `outputs.<id>.variant`.
        public let name: String
        /// Its weight (0 is never chosen).
        public let weight: Int64
        /// Its blocks, run as a list when chosen.
        public let blocks: [Block]
        /// Creates a variant.
        public init(name: String, weight: Int64, blocks: [Block]) {
            self.name = name
            self.weight = weight
            self.blocks = blocks
        }
    }
    /// The variants, in order.
    public let variants: [Variant]
    /// Creates a split.
    public init(variants: [Variant]) { self.variants = variants }
}

/// A `cancellation_scope`: a list whose started subtree survives instance cancellation.
public struct CancellationScopeBlock: Sendable {
    /// The shielded list.
    public let blocks: [Block]
    /// Creates a scope.
    public init(blocks: [Block]) { self.blocks = blocks }
}

public import StepwiseJSON

/// One block of a compiled sequence: its id, where it was written, and what it does.
///
/// Blocks are immutable values; nested lists are arrays of blocks.
public struct Block: Sendable {
    /// The block's id.
    public let id: BlockID
    /// Where the block sits in the document (`/blocks/2/routes/0/blocks/1`).
    public let pointer: JSONPointer
    /// The block's type and fields.
    public let kind: BlockKind

    /// Creates a block.
    public init(id: BlockID, pointer: JSONPointer, kind: BlockKind) {
        self.id = id
        self.pointer = pointer
        self.kind = kind
    }

    /// The block's type.
    public var type: BlockType {
        switch kind {
        case .step: .step
        case .router: .router
        case .parallel: .parallel
        case .race: .race
        case .loop: .loop
        case .forEach: .forEach
        case .tryCatch: .tryCatch
        case .subSequence: .subSequence
        case .abSplit: .abSplit
        case .cancellationScope: .cancellationScope
        }
    }

    /// The block lists directly inside this block, in document order, at stable positions:
    /// router routes then `default` (when present); try_catch always `[try, catch, finally]`
    /// (an absent phase is an empty list; check the block's fields for presence).
    public var childLists: [[Block]] {
        switch kind {
        case .step: []
        case .router(let r): r.routes.map(\.blocks) + (r.defaultBlocks.map { [$0] } ?? [])
        case .parallel(let p): p.branches
        case .race(let r): r.branches
        case .loop(let l): [l.body]
        case .forEach(let f): [f.body]
        case .tryCatch(let t): [t.tryBlocks, t.catchBlocks ?? [], t.finallyBlocks ?? []]
        case .subSequence: []
        case .abSplit(let a): a.variants.map(\.blocks)
        case .cancellationScope(let c): [c.blocks]
        }
    }
}

/// What a block does, with its type-specific fields.
public enum BlockKind: Sendable {
    /// Calls a handler (SEMANTICS §2.3).
    case step(StepBlock)
    /// Chooses one branch once, on entry.
    case router(RouterBlock)
    /// Runs branches concurrently.
    case parallel(ParallelBlock)
    /// Runs branches concurrently; the first to resolve or succeed wins.
    case race(RaceBlock)
    /// Repeats a body while a condition holds.
    case loop(LoopBlock)
    /// Runs a body once per element of a collection.
    case forEach(ForEachBlock)
    /// Try, catch and finally phases.
    case tryCatch(TryCatchBlock)
    /// Runs another sequence as a child instance.
    case subSequence(SubSequenceBlock)
    /// Chooses one variant by a hash of the instance id.
    case abSplit(ABSplitBlock)
    /// Shields its started subtree from instance cancellation.
    case cancellationScope(CancellationScopeBlock)
}

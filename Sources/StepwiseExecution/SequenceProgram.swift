public import StepwiseSequences

/// A compiled sequence flattened for execution: every block gets an index, and every block's
/// child lists are arrays of indices.
///
/// Nodes of the execution tree refer to blocks by index, so a persisted tree is small and
/// finding a node's block is an array access. The root pseudo-block (index ``rootIndex``) has
/// three lists: the main `blocks`, `on_failure` and `on_cancel`.
public final class SequenceProgram: Sendable {
    /// The pseudo-block index of the instance root.
    public static let rootIndex = -1
    /// Root list holding the main `blocks`.
    public static let mainList = 0
    /// Root list holding `on_failure`.
    public static let onFailureList = 1
    /// Root list holding `on_cancel`.
    public static let onCancelList = 2

    /// The compiled sequence.
    public let sequence: CompiledSequence
    /// Every block in depth-first document order.
    public let blocks: [Block]
    /// For every block index, its child lists as block indices.
    public let childLists: [[[Int]]]
    /// The root's lists: main, on_failure, on_cancel (empty when absent).
    public let rootLists: [[Int]]

    /// The stored key of this program.
    public var key: SequenceKey { SequenceKey(name: sequence.name, version: sequence.version) }

    /// Flattens `sequence`.
    public init(_ sequence: CompiledSequence) {
        var blocks: [Block] = []
        var childLists: [[[Int]]] = []
        func flatten(_ list: [Block]) -> [Int] {
            var indices: [Int] = []
            for block in list {
                let index = blocks.count
                blocks.append(block)
                childLists.append([])
                indices.append(index)
                let lists = block.childLists.map { flatten($0) }
                childLists[index] = lists
            }
            return indices
        }
        let main = flatten(sequence.blocks)
        let onFailure = flatten(sequence.onFailure ?? [])
        let onCancel = flatten(sequence.onCancel ?? [])
        self.sequence = sequence
        self.blocks = blocks
        self.childLists = childLists
        self.rootLists = [main, onFailure, onCancel]
    }

    /// The block lists of `blockIndex` (the root's lists for ``rootIndex``).
    public func lists(of blockIndex: Int) -> [[Int]] {
        blockIndex == Self.rootIndex ? rootLists : childLists[blockIndex]
    }

    /// The block indices of list `list` of `blockIndex`; empty when out of range.
    public func list(_ list: Int, of blockIndex: Int) -> [Int] {
        let all = lists(of: blockIndex)
        return list < all.count ? all[list] : []
    }
}

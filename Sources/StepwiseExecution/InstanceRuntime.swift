import StepwiseJSON
import StepwiseSequences

/// One live instance in memory: its record, its execution tree and its program.
///
/// Owned and mutated only by the engine (thread-confined, not `Sendable`). Transitions mark what
/// they change so a pass writes only dirty rows.
final class InstanceRuntime {
    var record: InstanceRecord
    private(set) var nodes: [Node]
    private(set) var children: [[NodeID]]
    let program: SequenceProgram
    private(set) var dirtyNodes: Set<Int> = []
    var recordDirty = false
    /// Indices of the non-terminal nodes, ascending: most of a long instance's nodes are
    /// finished, and every transition asks for the active ones.
    private var activeIndices: [Int] = []

    /// A fresh instance with only its root node.
    init(record: InstanceRecord, program: SequenceProgram) {
        self.record = record
        self.program = program
        nodes = []
        children = []
        _ = addNode(parent: nil, blockIndex: SequenceProgram.rootIndex, list: 0, position: 0, iteration: 0)
        recordDirty = true
    }

    /// An instance restored from storage.
    init(record: InstanceRecord, program: SequenceProgram, nodes: [Node]) {
        self.record = record
        self.program = program
        let sorted = nodes.sorted { $0.id < $1.id }
        self.nodes = sorted
        children = Array(repeating: [], count: sorted.count)
        for node in sorted {
            if let parent = node.parent, parent.rawValue < children.count { children[parent.rawValue].append(node.id) }
        }
        activeIndices = sorted.indices.filter { !sorted[$0].state.isTerminal }
    }

    subscript(id: NodeID) -> Node {
        get { nodes[id.rawValue] }
        set {
            let wasActive = !nodes[id.rawValue].state.isTerminal
            nodes[id.rawValue] = newValue
            dirtyNodes.insert(id.rawValue)
            let isActive = !newValue.state.isTerminal
            if wasActive != isActive { updateActive(id.rawValue, isActive: isActive) }
        }
    }

    var id: InstanceID { record.id }
    var root: Node { nodes[0] }
    var allNodes: [Node] { nodes }

    /// Appends a node and returns its id.
    func addNode(parent: NodeID?, blockIndex: Int, list: Int, position: Int, iteration: Int) -> NodeID {
        let id = NodeID(rawValue: nodes.count)
        let node = Node(id: id, parent: parent, blockIndex: blockIndex, list: list, position: position, iteration: iteration)
        nodes.append(node)
        if !node.state.isTerminal { activeIndices.append(id.rawValue) }
        children.append([])
        if let parent { children[parent.rawValue].append(id) }
        dirtyNodes.insert(id.rawValue)
        record.nextNodeID = nodes.count
        recordDirty = true
        return id
    }

    func childNodes(of id: NodeID) -> [NodeID] { children[id.rawValue] }

    /// The block of a node (`nil` for the root).
    func block(of id: NodeID) -> Block? {
        let index = nodes[id.rawValue].blockIndex
        return index == SequenceProgram.rootIndex ? nil : program.blocks[index]
    }

    /// Takes the set of changed nodes, clearing it.
    func takeDirtyNodes() -> [Node] {
        let result = dirtyNodes.sorted().map { nodes[$0] }
        dirtyNodes.removeAll(keepingCapacity: true)
        return result
    }

    /// Whether anything changed since the last take.
    var isDirty: Bool { recordDirty || !dirtyNodes.isEmpty }

    /// The 0-based indices of the enclosing loop/for_each iterations, outermost first, joined by
    /// `.`; `_` outside any.
    func iterationPath(of id: NodeID) -> String {
        var indices: [Int] = []
        var current = nodes[id.rawValue]
        while let parent = current.parent {
            let parentNode = nodes[parent.rawValue]
            if parentNode.blockIndex != SequenceProgram.rootIndex {
                switch program.blocks[parentNode.blockIndex].kind {
                case .loop, .forEach: indices.append(current.iteration)
                default: break
                }
            }
            current = parentNode
        }
        return indices.isEmpty ? "_" : indices.reversed().map(String.init).joined(separator: ".")
    }

    /// Non-terminal nodes, in tree (creation) order.
    var activeNodes: [Node] { activeIndices.map { nodes[$0] } }

    private func updateActive(_ index: Int, isActive: Bool) {
        // Binary search: the list stays sorted, so "creation order" needs no sort.
        var low = 0
        var high = activeIndices.count
        while low < high {
            let mid = (low + high) / 2
            if activeIndices[mid] < index { low = mid + 1 } else { high = mid }
        }
        if isActive {
            if low == activeIndices.count || activeIndices[low] != index { activeIndices.insert(index, at: low) }
        } else if low < activeIndices.count && activeIndices[low] == index {
            activeIndices.remove(at: low)
        }
    }
}

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
    }

    subscript(id: NodeID) -> Node {
        get { nodes[id.rawValue] }
        set {
            nodes[id.rawValue] = newValue
            dirtyNodes.insert(id.rawValue)
        }
    }

    var id: InstanceID { record.id }
    var root: Node { nodes[0] }
    var allNodes: [Node] { nodes }

    /// Appends a node and returns its id.
    func addNode(parent: NodeID?, blockIndex: Int, list: Int, position: Int, iteration: Int) -> NodeID {
        let id = NodeID(rawValue: nodes.count)
        nodes.append(Node(id: id, parent: parent, blockIndex: blockIndex, list: list, position: position, iteration: iteration))
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
    var activeNodes: [Node] { nodes.filter { !$0.state.isTerminal } }
}

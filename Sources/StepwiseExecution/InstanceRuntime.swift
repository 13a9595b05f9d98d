import StepwiseJSON
import StepwiseSequences

/// One live instance in memory: its record, its execution tree and its program.
///
/// Owned and mutated only by the engine (thread-confined, not `Sendable`). Transitions mark what
/// they change so a pass writes only dirty rows.
final class InstanceRuntime {
    /// The instance's row. Replace it with ``replaceRecord(_:)`` and set data and outputs
    /// members with ``setDataMember(_:to:)`` and ``setOutput(_:to:)``, so that the changes
    /// since the last commit are known.
    private(set) var record: InstanceRecord
    /// Members of the record's objects changed since the last commit (see ``takeObjectChanges()``).
    private var objectChanges = InstanceObjectChanges()
    /// The compact JSON size of `record.data` when known, kept up to date by
    /// ``setDataMember(_:to:)``: a step's size check then costs the size of its output, not of
    /// everything stored before it.
    private var knownDataBytes: Int?
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
        objectChanges = .whole
        _ = addNode(parent: nil, blockIndex: SequenceProgram.rootIndex, list: 0, position: 0, iteration: 0)
        recordDirty = true
    }

    /// An instance restored from storage.
    ///
    /// - Throws: ``StepwiseError`` `storage` naming the instance and the node when the stored
    ///   tree is not one the engine can have written (see ``treeDamage(_:program:createdNodes:)``): a damaged
    ///   file, refused before any lookup in it goes out of range. Nothing else.
    init(record: InstanceRecord, program: SequenceProgram, nodes: [Node]) throws(StepwiseError) {
        let sorted = nodes.sorted { $0.id < $1.id }
        if let damage = Self.treeDamage(sorted, program: program, createdNodes: record.nextNodeID) {
            throw StepwiseError(
                .storage, "the stored execution tree of instance \(record.id) is damaged: \(damage)",
                context: ["instance_id": .string(record.id.rawValue)])
        }
        self.record = record
        self.program = program
        self.nodes = sorted
        children = Array(repeating: [], count: sorted.count)
        for node in sorted {
            if let parent = node.parent, parent.rawValue < children.count { children[parent.rawValue].append(node.id) }
        }
        activeIndices = sorted.indices.filter { !sorted[$0].state.isTerminal }
    }

    /// What makes a stored tree (nodes sorted by id) one the engine cannot have written, or
    /// `nil`: ids are 0, 1, 2, …, as many as the instance row says were created (nodes are
    /// never deleted, so a lost row is found even when it was the last); node 0 is the root;
    /// every other node's parent comes before it and the node is the block at its list and
    /// position in its parent's block.
    static func treeDamage(_ nodes: [Node], program: SequenceProgram, createdNodes: Int) -> String? {
        guard let root = nodes.first else { return "it has no nodes" }
        guard root.id == .root, root.parent == nil, root.blockIndex == SequenceProgram.rootIndex else {
            return "node \(root.id.rawValue) is not the root"
        }
        for (index, node) in nodes.enumerated().dropFirst() {
            guard node.id.rawValue == index else { return "node \(index) is missing (the next is \(node.id.rawValue))" }
            guard let parent = node.parent, parent.rawValue >= 0, parent.rawValue < index else {
                return "node \(index) has no parent before it"
            }
            let parentBlock = nodes[parent.rawValue].blockIndex
            let list = node.list >= 0 ? program.list(node.list, of: parentBlock) : []
            guard node.position >= 0, node.position < list.count, list[node.position] == node.blockIndex,
                node.iteration >= 0, node.attempt >= 0
            else {
                return "node \(index) (block \(node.blockIndex), list \(node.list), position \(node.position)) is not a block of "
                    + "its parent in sequence \(program.key.name) v\(program.key.version)"
            }
        }
        if nodes.count < createdNodes { return "node \(nodes.count) is missing (the instance created \(createdNodes))" }
        return nil
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

    /// Replaces the record. An object whose storage is not the current one's was changed (a
    /// copy written to): it is marked as changed whole.
    func replaceRecord(_ newValue: InstanceRecord) { updateRecord { $0 = newValue } }

    /// Changes the record in place (no copy of it). An object `body` changes is marked as
    /// changed whole (the copies held here make a change to one give it new storage).
    func updateRecord(_ body: (inout InstanceRecord) -> Void) {
        let data = record.data
        let config = record.config
        let outputs = record.outputs
        body(&record)
        if !record.data.sharesStorage(with: data) {
            objectChanges.data = nil
            knownDataBytes = nil
        }
        if !record.config.sharesStorage(with: config) { objectChanges.config = nil }
        if !record.outputs.sharesStorage(with: outputs) { objectChanges.outputs = nil }
        recordDirty = true
    }

    /// Sets (or, with `nil`, removes) a member of `record.data` in place.
    ///
    /// - Returns: the compact JSON size of the data afterwards.
    func setDataMember(_ key: String, to value: JSONValue?) -> Int {
        let before = knownDataBytes ?? (JSONWriter.byteCount(.object(record.data)) ?? 0)
        let count = record.data.count
        let previous = record.data[key]
        record.data[key] = value
        recordDirty = true
        if value != nil { objectChanges.data?.insert(key) } else if previous != nil { objectChanges.data = nil }
        // {"k1":v1,"k2":v2}: the braces, each member's "key":value, a comma between members.
        var bytes = before
        if let previous {
            bytes -= Self.memberBytes(key, previous)
            if value == nil && count > 1 { bytes -= 1 }
        } else if value != nil && count > 0 {
            bytes += 1
        }
        if let value { bytes += Self.memberBytes(key, value) }
        knownDataBytes = bytes
        return bytes
    }

    /// Sets a member of `record.outputs` in place.
    func setOutput(_ key: String, to value: JSONValue) {
        record.outputs[key] = value
        objectChanges.outputs?.insert(key)
        recordDirty = true
    }

    /// The changes since the last take, clearing them.
    func takeObjectChanges() -> InstanceObjectChanges {
        defer { objectChanges = InstanceObjectChanges() }
        return objectChanges
    }

    private static func memberBytes(_ key: String, _ value: JSONValue) -> Int {
        (JSONWriter.byteCount(.string(key)) ?? 0) + 1 + (JSONWriter.byteCount(value) ?? 0)
    }

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

    /// The node's place in tree order (see ``TreeOrderKey``).
    func treeOrderKey(of id: NodeID) -> TreeOrderKey {
        var levels: [Int] = []
        var current = nodes[id.rawValue]
        while current.parent != nil {
            levels += [current.position, current.list, current.iteration]
            current = nodes[current.parent!.rawValue]
        }
        return TreeOrderKey(levels: levels.reversed())
    }

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

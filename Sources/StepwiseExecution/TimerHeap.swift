/// A min-heap of node deadlines. Entries are not removed when a node's deadline changes; a
/// popped entry is checked against the node before it fires.
struct TimerHeap {
    struct Entry {
        let due: Int64
        let instance: InstanceID
        let node: NodeID
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var earliest: Int64? { entries.first?.due }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var i = entries.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard entries[i].due < entries[parent].due else { break }
            entries.swapAt(i, parent)
            i = parent
        }
    }

    mutating func popDue(by now: Int64) -> Entry? {
        guard let first = entries.first, first.due <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var smallest = i
                if l < entries.count && entries[l].due < entries[smallest].due { smallest = l }
                if r < entries.count && entries[r].due < entries[smallest].due { smallest = r }
                if smallest == i { break }
                entries.swapAt(i, smallest)
                i = smallest
            }
        }
        return first
    }

    mutating func removeAll(where predicate: (Entry) -> Bool) {
        let kept = entries.filter { !predicate($0) }
        entries = []
        for e in kept { push(e) }
    }
}

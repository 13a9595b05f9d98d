/// A stack whose elements are moved, never copied, into exact-size arrays.
///
/// The parser keeps the finished members of every open container on one such stack and, when a
/// container closes, moves its members into a new array of exactly their count: one allocation
/// per container and no reference counting traffic, instead of growing one array per container.
struct MoveStack<Element>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    /// Number of elements on the stack.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// The element at `index` (from the bottom), borrowed.
    subscript(index: Int) -> Element {
        unsafeAddress { UnsafePointer(base + index) }
    }

    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Moves the elements from `start` to the top into a new array, bottom first, leaving
    /// `start` elements on the stack.
    mutating func popArray(from start: Int) -> [Element] {
        let n = count - start
        guard n > 0 else { return [] }
        // Not `Array(unsafeUninitializedCapacity:)`: it allocates through an unspecialised
        // standard-library entry point that looks up generic metadata on every call, which
        // cost more than the copying. `reserveCapacity` is specialised here.
        var result: [Element] = []
        result.reserveCapacity(n)
        for i in start..<count { result.append((base + i).move()) }
        count = start
        return result
    }

    private mutating func grow() {
        let newCapacity = capacity * 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}

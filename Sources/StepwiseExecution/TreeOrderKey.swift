/// A node's place in tree order (SEMANTICS §2.8: "dispatch order = tree order"): per level from
/// the root, the iteration, the list and the position within the list, compared level by level.
/// Loop and for_each iterations come in iteration order, parallel branches and try_catch lists
/// in list order, blocks of one list in their order.
struct TreeOrderKey: Comparable {
    let levels: [Int]

    static func < (lhs: TreeOrderKey, rhs: TreeOrderKey) -> Bool {
        lhs.levels.lexicographicallyPrecedes(rhs.levels)
    }
}

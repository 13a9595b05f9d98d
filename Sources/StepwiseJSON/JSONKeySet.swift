/// A small, fixed set of member names, checked against an object's members the way the object
/// compares its own keys: by length and first and last eight bytes, without hashing.
///
/// Made for validators that ask, for every member of many small objects, whether its name is one
/// of a dozen known fields; a `Set<String>` hashes every name to answer.
///
/// ```swift
/// let known: JSONKeySet = ["type", "id", "handler"]
/// let step: JSONObject = ["type": "step", "id": "a", "handle": "x"]
/// step.forEachKey(notIn: known) { print($0) }   // handle
/// ```
///
/// - Complexity: ``contains(_:)`` and each step of ``JSONObject/forEachKey(notIn:_:)`` are
///   O(n) in the set's size, with a few word comparisons per name: meant for sets of a few dozen.
public struct JSONKeySet: Sendable, ExpressibleByArrayLiteral {
    fileprivate let keys: [JSONKey]

    /// A set of `names` (duplicates are harmless).
    public init(_ names: some Sequence<String>) {
        keys = names.map { JSONKey($0) }
    }

    /// A set of the listed names.
    public init(arrayLiteral names: String...) {
        self.init(names)
    }

    /// Whether `name` is in the set.
    public func contains(_ name: String) -> Bool {
        contains(JSONKey(name))
    }

    @inline(__always)
    fileprivate func contains(_ key: JSONKey) -> Bool {
        for k in keys where k == key { return true }
        return false
    }
}

extension JSONObject {
    /// Calls `body` with each member name that is not in `known`, in insertion order, comparing
    /// the keys the object already holds (nothing is hashed or copied for known names).
    ///
    /// - Parameters:
    ///   - known: the names to pass over.
    ///   - body: called with every other name.
    public func forEachKey(notIn known: JSONKeySet, _ body: (String) throws -> Void) rethrows {
        try forEachStoredKey { key in
            if !known.contains(key) { try body(key.string) }
        }
    }
}

/// A JSON object: string keys in insertion order, each present once.
///
/// Keys are compared by their UTF-8 bytes (Unicode scalars), as RFC 8259 §8.3 recommends, not by
/// Swift's canonical equivalence: `"é"` (U+00E9) and `"e\u{301}"` are two different members.
///
/// Lookups are linear for small objects (the common case in sequences) and hashed once an
/// object grows past ``JSONObject/indexThreshold`` keys, so hostile objects with many keys stay
/// O(1) per lookup.
///
/// ```swift
/// var object: JSONObject = ["name": "onboarding"]
/// object["version"] = 3
/// object.keys            // ["name", "version"]
/// ```
///
/// - Complexity: lookup O(1) amortized; insertion of a new key O(1) amortized; removal O(n).
public struct JSONObject: Sendable {
    /// Number of keys above which a hash index is kept.
    public static let indexThreshold = 12

    private var keyStorage: [JSONKey]
    private var valueStorage: [JSONValue]
    private var index: [JSONKey: Int]?

    /// An empty object.
    public init() {
        keyStorage = []
        valueStorage = []
        index = nil
    }

    /// An empty object with room for `minimumCapacity` members.
    ///
    /// - Parameter minimumCapacity: the number of members to reserve storage for.
    public init(minimumCapacity: Int) {
        keyStorage = []
        valueStorage = []
        keyStorage.reserveCapacity(minimumCapacity)
        valueStorage.reserveCapacity(minimumCapacity)
        index = nil
    }

    /// An object from parsed members: `keys` distinct by bytes, `index` present exactly when
    /// there are more than ``indexThreshold`` keys.
    init(parsedKeys keys: [JSONKey], values: [JSONValue], index: [JSONKey: Int]?) {
        assert(keys.count == values.count && (index != nil) == (keys.count > Self.indexThreshold))
        keyStorage = keys
        valueStorage = values
        self.index = index
    }

    /// Number of members.
    public var count: Int { keyStorage.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { keyStorage.isEmpty }

    /// The keys in insertion order.
    ///
    /// - Complexity: O(n): the array is built on each access; iterate the object itself to
    ///   visit members without it.
    public var keys: [String] { keyStorage.map(\.string) }

    /// The values in insertion order.
    public var values: [JSONValue] { valueStorage }

    /// The position of `key` in insertion order, or `nil`.
    ///
    /// - Parameter key: the member name, compared by UTF-8 bytes.
    /// - Returns: the 0-based position of the member among ``keys``.
    /// - Complexity: O(1) amortized above ``indexThreshold`` keys, O(n) with n ≤ 12 below.
    public func position(of key: String) -> Int? {
        position(of: JSONKey(key))
    }

    @inline(__always)
    func position(of key: JSONKey) -> Int? {
        if let index { return index[key] }
        // Backwards: recently added keys are looked up most.
        var i = keyStorage.count - 1
        while i >= 0 {
            if keyStorage[i] == key { return i }
            i -= 1
        }
        return nil
    }

    /// Whether `key` is present.
    ///
    /// - Parameter key: the member name, compared by UTF-8 bytes.
    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    /// The value of `key`; assigning `nil` removes the member, assigning a value replaces it in
    /// place or appends it.
    ///
    /// - Parameter key: the member name, compared by UTF-8 bytes.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = position(of: key) else { return nil }
            return valueStorage[i]
        }
        set {
            let key = JSONKey(key)
            if let newValue {
                if let i = position(of: key) {
                    valueStorage[i] = newValue
                } else {
                    appendNew(key, value: newValue)
                }
            } else if let i = position(of: key) {
                keyStorage.remove(at: i)
                valueStorage.remove(at: i)
                rebuildIndex()
            }
        }
    }

    /// Appends a member known not to be present yet (the parser checks duplicates first).
    package mutating func appendNew(key: String, value: JSONValue) {
        appendNew(JSONKey(key), value: value)
    }

    private mutating func appendNew(_ key: JSONKey, value: JSONValue) {
        keyStorage.append(key)
        valueStorage.append(value)
        if index != nil {
            index![key] = keyStorage.count - 1
        } else if keyStorage.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    /// Removes the member `key` and returns its value.
    ///
    /// - Parameter key: the member name, compared by UTF-8 bytes.
    /// - Returns: the removed value, or `nil` when `key` was absent.
    /// - Complexity: O(n).
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let i = position(of: key) else { return nil }
        let v = valueStorage[i]
        keyStorage.remove(at: i)
        valueStorage.remove(at: i)
        rebuildIndex()
        return v
    }

    /// The members sorted by key, comparing UTF-8 bytes.
    ///
    /// - Complexity: O(n log n).
    public func sortedByKey() -> [(key: String, value: JSONValue)] {
        zip(keyStorage, valueStorage).map { (key: $0.0.string, value: $0.1) }.sorted {
            $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
        }
    }

    private mutating func rebuildIndex() {
        guard keyStorage.count > Self.indexThreshold else {
            index = nil
            return
        }
        var built = [JSONKey: Int](minimumCapacity: keyStorage.count)
        for (i, k) in keyStorage.enumerated() { built[k] = i }
        index = built
    }
}

extension JSONObject {
    /// Calls `body` with each stored key, in insertion order.
    @inline(__always)
    func forEachStoredKey(_ body: (JSONKey) throws -> Void) rethrows {
        for key in keyStorage { try body(key) }
    }
}

extension JSONObject: Sequence {
    /// Iterates members in insertion order.
    public struct Iterator: IteratorProtocol {
        fileprivate let keys: [JSONKey]
        fileprivate let values: [JSONValue]
        fileprivate var position = 0

        /// The next member, or `nil` after the last one.
        public mutating func next() -> (key: String, value: JSONValue)? {
            guard position < keys.count else { return nil }
            defer { position += 1 }
            return (key: keys[position].string, value: values[position])
        }
    }

    /// Iterates members in insertion order.
    public func makeIterator() -> Iterator { Iterator(keys: keyStorage, values: valueStorage) }

    /// The number of members.
    public var underestimatedCount: Int { keyStorage.count }
}

extension JSONObject: Equatable {
    /// Same key set (by UTF-8 bytes) with equal values, regardless of order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs.keyStorage.count {
            // Same order is the common case: try the same position first.
            let j: Int
            if rhs.keyStorage[i] == lhs.keyStorage[i] {
                j = i
            } else if let found = rhs.position(of: lhs.keyStorage[i]) {
                j = found
            } else {
                return false
            }
            guard rhs.valueStorage[j] == lhs.valueStorage[i] else { return false }
        }
        return true
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object with the given members in order; a repeated key keeps its first position and
    /// its last value.
    ///
    /// ```swift
    /// let object: JSONObject = ["a": 1, "b": [true, nil]]
    /// ```
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(minimumCapacity: elements.count)
        for (k, v) in elements { self[k] = v }
    }
}

extension JSONObject {
    /// Whether this object and `other` share their storage: one is a copy of the other and
    /// neither was written since, so they are equal without comparing a value.
    ///
    /// `false` says nothing: equal objects built apart have storage of their own.
    ///
    /// - Complexity: O(1).
    package func sharesStorage(with other: JSONObject) -> Bool {
        guard count == other.count else { return false }
        if count == 0 { return true }
        let keys = keyStorage.withUnsafeBufferPointer { mine in
            other.keyStorage.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
        }
        return keys
            && valueStorage.withUnsafeBufferPointer { mine in
                other.valueStorage.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
            }
    }
}

/// A JSON object: string keys in insertion order, each present once.
///
/// Lookups are linear for small objects (the common case in sequences) and hashed once an
/// object grows past ``JSONObject/indexThreshold`` keys, so hostile objects with many keys stay
/// O(1) per lookup.
///
/// - Complexity: lookup O(1) amortized; insertion of a new key O(1) amortized; removal O(n).
public struct JSONObject: Sendable {
    /// Number of keys above which a hash index is kept.
    public static let indexThreshold = 12

    private var keyStorage: [String]
    private var valueStorage: [JSONValue]
    private var index: [String: Int]?

    /// An empty object.
    public init() {
        keyStorage = []
        valueStorage = []
        index = nil
    }

    /// An empty object with room for `minimumCapacity` members.
    public init(minimumCapacity: Int) {
        keyStorage = []
        valueStorage = []
        keyStorage.reserveCapacity(minimumCapacity)
        valueStorage.reserveCapacity(minimumCapacity)
        index = nil
    }

    /// Number of members.
    public var count: Int { keyStorage.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { keyStorage.isEmpty }

    /// The keys in insertion order.
    public var keys: [String] { keyStorage }

    /// The values in insertion order.
    public var values: [JSONValue] { valueStorage }

    /// The position of `key`, or `nil`.
    public func position(of key: String) -> Int? {
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
    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    /// The value of `key`; assigning `nil` removes the member, assigning a value replaces it in
    /// place or appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = position(of: key) else { return nil }
            return valueStorage[i]
        }
        set {
            if let newValue {
                if let i = position(of: key) {
                    valueStorage[i] = newValue
                } else {
                    appendNew(key: key, value: newValue)
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
        keyStorage.append(key)
        valueStorage.append(value)
        if index != nil {
            index![key] = keyStorage.count - 1
        } else if keyStorage.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    /// Removes the member `key` and returns its value.
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
    public func sortedByKey() -> [(key: String, value: JSONValue)] {
        zip(keyStorage, valueStorage).map { (key: $0.0, value: $0.1) }.sorted {
            $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
        }
    }

    private mutating func rebuildIndex() {
        guard keyStorage.count > Self.indexThreshold else {
            index = nil
            return
        }
        var built = [String: Int](minimumCapacity: keyStorage.count)
        for (i, k) in keyStorage.enumerated() { built[k] = i }
        index = built
    }
}

extension JSONObject: Sequence {
    /// Iterates members in insertion order.
    public struct Iterator: IteratorProtocol {
        fileprivate let keys: [String]
        fileprivate let values: [JSONValue]
        fileprivate var position = 0

        public mutating func next() -> (key: String, value: JSONValue)? {
            guard position < keys.count else { return nil }
            defer { position += 1 }
            return (key: keys[position], value: values[position])
        }
    }

    /// Iterates members in insertion order.
    public func makeIterator() -> Iterator { Iterator(keys: keyStorage, values: valueStorage) }
}

extension JSONObject: Equatable {
    /// Same key set with equal values, regardless of order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs.keyStorage.count {
            guard let j = rhs.position(of: lhs.keyStorage[i]), rhs.valueStorage[j] == lhs.valueStorage[i] else {
                return false
            }
        }
        return true
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(minimumCapacity: elements.count)
        for (k, v) in elements { self[k] = v }
    }
}

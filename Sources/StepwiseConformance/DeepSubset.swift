import StepwiseJSON

/// The deep-subset match of CONFORMANCE.md: objects recursively as subsets, arrays element by
/// element with the same length, scalars equal (numbers by value).
enum DeepSubset {
    /// `nil` when `actual` contains `expected`, else where and how they differ.
    static func mismatch(expected: JSONValue, actual: JSONValue, path: String = "") -> String? {
        switch (expected, actual) {
        case (.object(let e), .object(let a)):
            for (key, value) in e {
                guard let actualValue = a[key] else { return "\(path)/\(key) is missing" }
                if let m = mismatch(expected: value, actual: actualValue, path: "\(path)/\(key)") { return m }
            }
            return nil
        case (.array(let e), .array(let a)):
            guard e.count == a.count else {
                return "\(path.isEmpty ? "/" : path) has \(a.count) elements, expected \(e.count): \(JSONWriter.string(actual))"
            }
            for (i, pair) in zip(e, a).enumerated() {
                if let m = mismatch(expected: pair.0, actual: pair.1, path: "\(path)/\(i)") { return m }
            }
            return nil
        default:
            return expected == actual
                ? nil : "\(path.isEmpty ? "/" : path) is \(JSONWriter.string(actual)), expected \(JSONWriter.string(expected))"
        }
    }
}

public import StepwiseJSON

/// One `{pointer, code}` pair of an invalid fixture's `<name>.expected.json` sidecar.
///
/// A sidecar is `{"problems": [{"pointer": "/blocks/0/handler", "code": "missing_field"}, ...]}`
/// and lists exactly the load problems SEMANTICS §1.6 requires for the fixture (messages are not
/// compared: they are gists).
public struct ExpectedProblem: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// RFC 6901 pointer text (`""` for the whole document).
    public let pointer: String
    /// The problem code (`missing_field`).
    public let code: String

    /// Creates a pair.
    public init(pointer: String, code: String) {
        self.pointer = pointer
        self.code = code
    }

    /// Orders by pointer (document order, numeric tokens numerically), then code.
    public static func < (lhs: ExpectedProblem, rhs: ExpectedProblem) -> Bool {
        let l = JSONPointer(parsing: lhs.pointer) ?? .root
        let r = JSONPointer(parsing: rhs.pointer) ?? .root
        if l != r { return l < r }
        return lhs.code < rhs.code
    }

    /// `<pointer>: <code>`, the whole document shown as `/`.
    public var description: String { "\(pointer.isEmpty ? "/" : pointer): \(code)" }

    /// The problems listed in a sidecar document.
    ///
    /// - Throws: ``FixtureError`` with code `malformed` when the document is not
    ///   `{"problems": [{"pointer": string, "code": string}, ...]}`.
    public static func list(fromSidecar sidecar: JSONValue, file: String) throws(FixtureError) -> [ExpectedProblem] {
        guard let entries = sidecar["problems"]?.arrayValue else {
            throw FixtureError(code: .malformed, message: "expected {\"problems\": [...]}", context: file)
        }
        var result: [ExpectedProblem] = []
        for entry in entries {
            guard let pointer = entry["pointer"]?.stringValue, JSONPointer(parsing: pointer) != nil,
                let code = entry["code"]?.stringValue
            else {
                throw FixtureError(code: .malformed, message: "bad problem entry \(entry)", context: file)
            }
            result.append(ExpectedProblem(pointer: pointer, code: code))
        }
        return result
    }
}

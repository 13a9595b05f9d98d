import StepwiseJSON
import Testing

/// Parses `bytes`, expecting failure, and returns the error (recording an issue otherwise).
func parseFailure(
    _ bytes: [UInt8], limits: JSONParser.Limits = JSONParser.Limits(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> JSONParseError? {
    do {
        let value = try JSONParser.parse(bytes, limits: limits)
        Issue.record("expected a parse error, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Parses `text`, expecting failure, and returns the error.
func parseFailure(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONParseError? {
    parseFailure(Array(text.utf8), sourceLocation: sourceLocation)
}

/// Structural identity, stricter than `==`: same cases (an integer is not a double), doubles
/// bit for bit (so `-0.0` differs from `0.0`), strings and keys byte for byte, and object keys
/// in the same order.
func identical(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.integer(let x), .integer(let y)): return x == y
    case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
    case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
    case (.object(let x), .object(let y)):
        return x.count == y.count
            && zip(x, y).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && identical($0.value, $1.value) }
    default: return false
    }
}

/// The UTF-8 bytes of `text`; byte-level cases are built as `utf8("\"a") + [0xFF] + utf8("\"")`.
func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A test case that is a name plus data, printed by its name in the test report.
struct Named<Value: Sendable>: Sendable, CustomTestStringConvertible {
    let name: String
    let value: Value
    init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }
    var testDescription: String { name }
}

import FuzzSupport
import Stepwise

/// Fuzzes `JSONParser.parse` and `JSONWriter`.
///
/// Invariants: the parser throws only `invalid_json` or `too_deep_json`, with an offset inside
/// the input and a bounded message; an accepted document round-trips through every writer
/// option; a tighter depth limit accepts exactly the documents that fit it, with the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let value = parse(bytes, limits: JSONParser.Limits())
    let shallow = parse(bytes, limits: JSONParser.Limits(maxDepth: 3))
    if let value {
        JSONInvariants.checkRoundTrip(value, "parsed document")
        fuzzCheck(depth(of: value) <= 256, "accepted a document deeper than 256")
        if depth(of: value) <= 3 {
            fuzzCheck(shallow == value, "depth limit 3 rejects or changes a document 3 deep")
        } else {
            fuzzCheck(shallow == nil, "depth limit 3 accepts a document deeper than 3")
        }
    } else {
        fuzzCheck(shallow == nil, "depth limit 3 accepts a document the default limit rejects")
    }
    return 0
}

/// Parses, checking the error contract; `nil` when rejected.
private func parse(_ bytes: [UInt8], limits: JSONParser.Limits) -> JSONValue? {
    do {
        return try JSONParser.parse(bytes, limits: limits)
    } catch {
        fuzzCheck(
            error.code == .invalidJSON || error.code == .tooDeep, "unexpected error code \(error.code)")
        fuzzCheck(error.offset >= 0 && error.offset <= bytes.count, "offset \(error.offset) outside 0...\(bytes.count)")
        checkMessage(error.message, "JSONParseError")
        if error.code == .tooDeep {
            fuzzCheck(
                error.message == "JSON nesting exceeds the limit of \(limits.maxDepth)",
                "too_deep_json message does not name the limit: \(error.message)")
        }
        return nil
    }
}

/// Nesting depth: scalars 0, the outermost container 1. Iterative, so any value is safe.
private func depth(of value: JSONValue) -> Int {
    var deepest = 0
    // Each value with the number of containers around it.
    var stack: [(JSONValue, Int)] = [(value, 0)]
    while let (v, enclosing) = stack.popLast() {
        switch v {
        case .array(let a):
            deepest = max(deepest, enclosing + 1)
            for e in a { stack.append((e, enclosing + 1)) }
        case .object(let o):
            deepest = max(deepest, enclosing + 1)
            for (_, e) in o { stack.append((e, enclosing + 1)) }
        default:
            break
        }
    }
    return deepest
}

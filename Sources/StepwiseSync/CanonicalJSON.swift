import StepwiseExecution
public import StepwiseJSON

/// Stepwise canonical JSON (SYNC.md §3.11): what `stepwise publish` writes and signs.
///
/// Strict input (duplicate keys, BOM, bad UTF-8 are errors); output is UTF-8 with no whitespace
/// between tokens and no trailing newline; object members sorted by key comparing UTF-8 bytes;
/// arrays in order; strings with minimal escaping (`\"`, `\\`, `\b \t \n \f \r`, other control
/// characters as lowercase `\u00xx`, everything else literal); numbers exactly as the token was
/// written (`3000.0` stays a float, `1e3` stays `1e3`).
///
/// For integer-only documents this equals Python's
/// `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
///
/// ```swift
/// try CanonicalJSON.canonicalize(Array(#"{"b": 1.50, "a": "é"}"#.utf8))   // {"a":"é","b":1.50}
/// ```
public enum CanonicalJSON {
    private indirect enum Node {
        case literal([UInt8])
        case string(String)
        case array([Node])
        case object([(String, Node)])
    }

    /// The canonical form of a JSON document.
    ///
    /// - Parameter bytes: strict JSON text (nesting ≤ 256).
    /// - Returns: the canonical bytes.
    /// - Throws: ``SyncError`` `invalidInput` naming the parse error and its byte offset. Nothing else.
    public static func canonicalize(_ bytes: [UInt8]) throws(SyncError) -> [UInt8] {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw SyncError(.invalidInput, "not valid JSON: \(error.description)")
        }
        let tokens = numberTokens(in: bytes)
        var next = 0
        let tree = build(value, tokens: tokens, next: &next)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        write(tree, into: &out)
        return out
    }

    /// The canonical bytes of a value built in code (numbers written as ``JSONWriter`` does).
    public static func bytes(of value: JSONValue) -> [UInt8] {
        JSONWriter.bytes(value, options: .sortedKeys)
    }

    /// Every number token of valid JSON text, in document order.
    private static func numberTokens(in bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var tokens: [ArraySlice<UInt8>] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x22 {
                i += 1
                while i < bytes.count, bytes[i] != 0x22 { i += bytes[i] == 0x5C ? 2 : 1 }
                i += 1
            } else if b == 0x2D || (0x30...0x39).contains(b) {
                let start = i
                while i < bytes.count, Self.isNumberByte(bytes[i]) { i += 1 }
                tokens.append(bytes[start..<i])
            } else {
                i += 1
            }
        }
        return tokens
    }

    private static func isNumberByte(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || b == 0x2D || b == 0x2B || b == 0x2E || b == 0x65 || b == 0x45
    }

    /// The value with each number replaced by its token (objects keep document order, which is
    /// the order number tokens appear in).
    private static func build(_ value: JSONValue, tokens: [ArraySlice<UInt8>], next: inout Int) -> Node {
        switch value {
        case .null: return .literal(Array("null".utf8))
        case .bool(let b): return .literal(Array((b ? "true" : "false").utf8))
        case .integer, .double:
            defer { next += 1 }
            if next < tokens.count { return .literal(Array(tokens[next])) }
            return .literal(JSONWriter.bytes(value))
        case .string(let s): return .string(s)
        case .array(let items): return .array(items.map { build($0, tokens: tokens, next: &next) })
        case .object(let object):
            var members: [(String, Node)] = []
            for (key, member) in object { members.append((key, build(member, tokens: tokens, next: &next))) }
            return .object(members)
        }
    }

    private static func write(_ node: Node, into out: inout [UInt8]) {
        switch node {
        case .literal(let bytes): out.append(contentsOf: bytes)
        case .string(let s): JSONWriter.appendString(s, to: &out)
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                write(item, into: &out)
            }
            out.append(0x5D)
        case .object(let members):
            out.append(0x7B)
            let sorted = members.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            for (i, (key, member)) in sorted.enumerated() {
                if i > 0 { out.append(0x2C) }
                JSONWriter.appendString(key, to: &out)
                out.append(0x3A)
                write(member, into: &out)
            }
            out.append(0x7D)
        }
    }
}

/// Byte ranges of the elements and members of a JSON container, so a part of a document can be
/// kept exactly as it was written: a sequence stored from an array keeps its own original bytes
/// (SEMANTICS §1.3), as one loaded alone does.
///
/// The scan does not validate: call it on bytes ``JSONParser`` has accepted. It never recurses
/// (nesting is a counter), so it is safe at any depth.
///
/// ```swift
/// let bytes = Array(#"[ {"a": 1} , [2] ]"#.utf8)
/// let whole = try #require(JSONSpans.value(in: bytes, from: 0))
/// JSONSpans.elements(in: bytes, of: whole)  // [2..<10, 13..<16]
/// ```
package enum JSONSpans {
    /// The range of the value starting at the first non-whitespace byte at or after `start`, or
    /// nil when there is none.
    package static func value(in bytes: [UInt8], from start: Int) -> Range<Int>? {
        let first = skipWhitespace(bytes, start)
        guard first < bytes.count else { return nil }
        return first..<valueEnd(bytes, first)
    }

    /// The ranges of the elements of the array at `array` (whitespace excluded), or nil when it
    /// is not an array.
    package static func elements(in bytes: [UInt8], of array: Range<Int>) -> [Range<Int>]? {
        guard !array.isEmpty, bytes[array.lowerBound] == UInt8(ascii: "[") else { return nil }
        var result: [Range<Int>] = []
        var i = skipWhitespace(bytes, array.lowerBound + 1)
        while i < array.upperBound && bytes[i] != UInt8(ascii: "]") {
            let end = valueEnd(bytes, i)
            result.append(i..<end)
            i = skipWhitespace(bytes, end)
            if i < array.upperBound && bytes[i] == UInt8(ascii: ",") { i = skipWhitespace(bytes, i + 1) }
        }
        return result
    }

    /// The ranges of the member values of the object at `object`, with their keys as written
    /// (still escaped; compare them through ``JSONParser`` when a key may hold escapes), or nil
    /// when it is not an object.
    package static func members(in bytes: [UInt8], of object: Range<Int>) -> [(key: Range<Int>, value: Range<Int>)]? {
        guard !object.isEmpty, bytes[object.lowerBound] == UInt8(ascii: "{") else { return nil }
        var result: [(key: Range<Int>, value: Range<Int>)] = []
        var i = skipWhitespace(bytes, object.lowerBound + 1)
        while i < object.upperBound && bytes[i] == UInt8(ascii: "\"") {
            let keyEnd = stringEnd(bytes, i)
            var j = skipWhitespace(bytes, keyEnd)
            guard j < object.upperBound, bytes[j] == UInt8(ascii: ":") else { return nil }
            j = skipWhitespace(bytes, j + 1)
            let end = valueEnd(bytes, j)
            result.append((key: i..<keyEnd, value: j..<end))
            i = skipWhitespace(bytes, end)
            if i < object.upperBound && bytes[i] == UInt8(ascii: ",") { i = skipWhitespace(bytes, i + 1) }
        }
        return result
    }

    /// The range of the value of the member named `key` (a key without escapes) in the object
    /// at `object`, or nil.
    package static func member(_ key: String, in bytes: [UInt8], of object: Range<Int>) -> Range<Int>? {
        let quoted = [UInt8(ascii: "\"")] + Array(key.utf8) + [UInt8(ascii: "\"")]
        return members(in: bytes, of: object)?.first { bytes[$0.key].elementsEqual(quoted) }?.value
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ start: Int) -> Int {
        var i = start
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return i
            }
        }
        return i
    }

    /// The index after the string starting at `start` (its opening quote).
    private static func stringEnd(_ bytes: [UInt8], _ start: Int) -> Int {
        var i = start + 1
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "\""): return i + 1
            default: i += 1
            }
        }
        return bytes.count
    }

    /// The index after the value starting at `start`.
    private static func valueEnd(_ bytes: [UInt8], _ start: Int) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = start
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    i = stringEnd(bytes, i)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default:
                    break
                }
                i += 1
            }
            return bytes.count
        default:
            // A number or a literal: up to the next delimiter.
            var i = start
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D: return i
                default: i += 1
                }
            }
            return i
        }
    }
}

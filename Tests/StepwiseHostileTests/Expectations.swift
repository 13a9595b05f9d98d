import Foundation
import Stepwise
import Testing

/// Checks shared by the parser suites.
enum Expect {
    /// Runs `body` on a bounded thread; records an issue and returns `nil` when it overran.
    static func bounded<T: Sendable>(_ c: HostileCase, _ body: @escaping @Sendable () -> T) -> T? {
        guard let (value, seconds) = Bounded.run(seconds: c.timeLimit, body) else {
            Issue.record("\(c.testDescription): no answer within \(c.timeLimit) s (hang or super-linear work)")
            return nil
        }
        if seconds > 1 { print("hostile: \(c.testDescription) took \(String(format: "%.2f", seconds)) s") }
        return value
    }

    /// `message` contains the sidecar's expected substring (when given), is non-empty and is
    /// bounded (`max_message_bytes`, default 4 KiB: an error never echoes a hostile input whole).
    static func message(_ message: String, contains expected: String?, _ c: HostileCase) {
        #expect(!message.isEmpty, "\(c.testDescription): empty message")
        if let expected, !expected.isEmpty {
            #expect(message.contains(expected), "\(c.testDescription): message '\(message)' lacks '\(expected)'")
        }
        let limit = Int(c.expect["max_message_bytes"]?.exactIntegerValue ?? 4096)
        #expect(
            message.utf8.count <= limit,
            "\(c.testDescription): message of \(message.utf8.count) bytes, over \(limit): \(message.prefix(200))…")
    }

    /// The sidecar names no expectation this suite does not understand (catches typos).
    static func knownKeys(_ c: HostileCase, _ keys: Set<String>) {
        let unknown = Set(c.expect.keys).subtracting(keys.union(["max_message_bytes"]))
        #expect(unknown.isEmpty, "\(c.testDescription): unknown expectations \(unknown.sorted())")
    }

    /// A value's shape against `value`, `types`, `string_bytes`, `array_count`, `object_count`.
    static func value(_ value: JSONValue, _ c: HostileCase) {
        let e = c.expect
        if let expected = e["value"] {
            #expect(value == expected, "\(c.testDescription): value \(describe(value)) ≠ \(describe(expected))")
        }
        if case .array(let types)? = e["types"] {
            let actual = value.arrayValue?.map { JSONValue.string($0.typeName) }
            #expect(actual == types, "\(c.testDescription): element types \(actual ?? []) ≠ \(types)")
        }
        if let n = e["string_bytes"]?.exactIntegerValue {
            #expect(value.stringValue?.utf8.count == Int(n), "\(c.testDescription): not a string of \(n) bytes")
        }
        if let n = e["array_count"]?.exactIntegerValue {
            #expect(value.arrayValue?.count == Int(n), "\(c.testDescription): not an array of \(n) elements")
        }
        if let n = e["object_count"]?.exactIntegerValue {
            #expect(value.objectValue?.count == Int(n), "\(c.testDescription): not an object of \(n) members")
        }
    }

    /// At most 300 characters of a value's JSON, for messages.
    static func describe(_ value: JSONValue) -> String {
        let text = JSONWriter.string(value)
        return text.utf8.count > 300 ? String(text.prefix(300)) + "…" : text
    }

    static let valueKeys: Set<String> = ["value", "types", "string_bytes", "array_count", "object_count", "accepted"]
}

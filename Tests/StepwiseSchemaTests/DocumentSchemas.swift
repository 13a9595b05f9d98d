import Foundation
import StepwiseJSON
import StepwiseTesting
import Synchronization
import Testing

/// The schemas of the documents the product writes, compiled once per test run, and the checks
/// the tests of those documents share.
///
/// Each document test produces the real document from the product (a command's `execute`, an
/// engine call through a recording transport), validates it, and then breaks it the way a
/// regression would (a member renamed, retyped or out of its enumeration) to show that the schema
/// notices: a schema that accepts everything would pass the first half alone.
enum DocumentSchemas {
    /// Validators by schema path (and definition), compiled on first use; compiling a schema
    /// with the folder's others takes a few milliseconds, and the tests ask for the same ones often.
    private static let cache = ValidatorCache()

    /// The validator for `path` (a `SchemaCatalog` path), or for its `#/$defs/<definition>`.
    static func validator(_ path: String, definition: String? = nil) throws -> JSONSchemaValidator {
        try cache.validator(path, definition: definition)
    }

    /// Records an issue listing every violation when `document` does not match.
    static func expectValid(
        _ document: JSONValue, _ path: String, definition: String? = nil, _ what: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let violations = try validator(path, definition: definition).validate(document)
        let listed = violations.map(\.description).joined(separator: "\n")
        #expect(
            violations.isEmpty, "\(what.isEmpty ? path : what) does not match its schema:\n\(listed)\n\(JSONWriter.string(document))",
            sourceLocation: sourceLocation)
    }

    /// Records an issue when `document` matches, or when no violation is at, above or below
    /// `pointer` (where the schema must complain).
    static func expectRejected(
        _ document: JSONValue, _ path: String, definition: String? = nil, near pointer: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let violations = try validator(path, definition: definition).validate(document)
        let expected = try #require(JSONPointer(parsing: pointer), sourceLocation: sourceLocation)
        #expect(!violations.isEmpty, "accepted a broken document (\(pointer)): \(JSONWriter.string(document))", sourceLocation: sourceLocation)
        #expect(
            violations.contains { $0.instanceLocation.isPrefix(of: expected) || expected.isPrefix(of: $0.instanceLocation) },
            "no violation near \(pointer): \(violations.map(\.description))", sourceLocation: sourceLocation)
    }

    /// The standard output of a `--json` command, parsed.
    static func parse(_ standardOutput: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        do {
            return try JSONParser.parse(standardOutput)
        } catch {
            Issue.record("standard output is not JSON (\(error)):\n\(standardOutput)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// A fresh temporary folder, removed by the caller (`defer`).
    static func scratchFolder(_ label: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-schema-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Writes `text` to `name` in `folder` and returns the file's path.
    static func write(_ text: String, to name: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Compiled validators, shared by concurrently running tests.
private final class ValidatorCache: Sendable {
    private let validators = Mutex<[String: JSONSchemaValidator]>([:])

    func validator(_ path: String, definition: String?) throws -> JSONSchemaValidator {
        let key = path + "#" + (definition ?? "")
        if let known = validators.withLock({ $0[key] }) { return known }
        let compiled = try definition.map { try SchemaCatalog.validator(for: path, definition: $0) } ?? SchemaCatalog.validator(for: path)
        validators.withLock { $0[key] = compiled }
        return compiled
    }
}

/// Edits of a parsed document, to break a real document the way a regression would.
extension JSONValue {
    /// The document with the member or element at `pointer` replaced by `value` (`nil` removes
    /// an object member); the parent must exist.
    func replacing(_ pointer: String, with value: JSONValue?) -> JSONValue {
        guard let parsed = JSONPointer(parsing: pointer) else { return self }
        return Self.edit(self, parsed.tokens[...], value)
    }

    /// The document with the object member at `pointer` renamed to `newName` (same value).
    func renaming(_ pointer: String, to newName: String) -> JSONValue {
        guard let parsed = JSONPointer(parsing: pointer), let old = parsed.resolve(in: self) else { return self }
        let sibling = JSONPointer(tokens: Array(parsed.tokens.dropLast()) + [newName])
        return replacing(pointer, with: nil).replacing(sibling.description, with: old)
    }

    private static func edit(_ value: JSONValue, _ tokens: ArraySlice<String>, _ new: JSONValue?) -> JSONValue {
        guard let first = tokens.first else { return new ?? .null }
        switch value {
        case .object(var members):
            if tokens.count == 1 {
                if let new { members[first] = new } else { _ = members.removeValue(forKey: first) }
            } else {
                members[first] = edit(members[first] ?? .null, tokens.dropFirst(), new)
            }
            return .object(members)
        case .array(var items):
            guard let index = Int(first), items.indices.contains(index) else { return value }
            items[index] = tokens.count == 1 ? (new ?? .null) : edit(items[index], tokens.dropFirst(), new)
            return .array(items)
        default:
            return value
        }
    }
}

import Foundation
import StepwiseJSON

/// Finds case files and parses them into cases.
public enum ConformanceLoader {
    /// Every `*.json` file under `paths` (files as given, folders recursively, sorted).
    ///
    /// - Returns: the files, and an error for each path that does not exist.
    public static func files(in paths: [String]) -> (files: [String], missing: [ConformanceInputError]) {
        var files: [String] = []
        var missing: [ConformanceInputError] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                missing.append(ConformanceInputError(file: path, message: "no such file or folder"))
                continue
            }
            if isDirectory.boolValue {
                var found: [String] = []
                if let e = fm.enumerator(atPath: path) {
                    for case let relative as String in e where relative.hasSuffix(".json") {
                        found.append((path as NSString).appendingPathComponent(relative))
                    }
                }
                files += found.sorted()
            } else {
                files.append(path)
            }
        }
        return (files, missing)
    }

    /// The cases of one file: a case object, or `{"cases": [...]}`.
    ///
    /// - Throws: ``ConformanceInputError`` when the file is unreadable, not JSON, or not a case.
    public static func cases(inFile file: String) throws(ConformanceInputError) -> [ConformanceCase] {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConformanceInputError(file: file, message: "cannot read the file")
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse([UInt8](data))
        } catch {
            throw ConformanceInputError(file: file, message: "not JSON: \(error)")
        }
        let objects: [JSONValue]
        if case .array(let list)? = document["cases"] {
            objects = list
        } else if document["expr"] != nil || document["sequence"] != nil {
            objects = [document]
        } else {
            throw ConformanceInputError(file: file, message: "not a case: expected a case object or {\"cases\": [...]}")
        }
        var result: [ConformanceCase] = []
        for (i, object) in objects.enumerated() {
            result.append(try parseCase(object, file: file, index: i))
        }
        return result
    }

    static func parseCase(_ object: JSONValue, file: String, index: Int) throws(ConformanceInputError) -> ConformanceCase {
        guard case .object(let o) = object else {
            throw ConformanceInputError(file: file, message: "case \(index) is not an object")
        }
        guard case .string(let name)? = o["name"] else {
            throw ConformanceInputError(file: file, message: "case \(index) has no 'name'")
        }
        if case .string(let expr)? = o["expr"] {
            var data = o["data"] ?? .object(JSONObject())
            var config: JSONValue = .object(JSONObject())
            if let context = o["context"] {
                data = context["data"] ?? .object(JSONObject())
                config = context["config"] ?? .object(JSONObject())
            }
            var expectedError: String?
            switch o["expect_error"] {
            case .string(let s)?: expectedError = s
            case .bool(true)?: expectedError = ""
            default: break
            }
            return ConformanceCase(
                file: file, name: name,
                kind: .expression(
                    ExpressionCase(
                        expression: expr, data: data, config: config, outputs: o["outputs"]?.objectValue ?? JSONObject(),
                        expected: o["expect"], expectedTruthy: o["expect_truthy"]?.boolValue, expectedError: expectedError)))
        }
        guard let sequence = o["sequence"] else {
            throw ConformanceInputError(file: file, message: "case '\(name)' has neither 'sequence' nor 'expr'")
        }
        guard case .object(let expect)? = o["expect"] else {
            throw ConformanceInputError(file: file, message: "case '\(name)' has no 'expect' object")
        }
        var handlers: [String: [JSONValue]] = [:]
        if case .object(let h)? = o["handlers"] {
            for (k, v) in h { handlers[k] = v.arrayValue ?? [v] }
        }
        return ConformanceCase(
            file: file, name: name,
            kind: .sequence(
                SequenceCase(
                    sequence: sequence, extraSequences: o["sequences"]?.arrayValue ?? [],
                    instanceID: o["instance_id"]?.stringValue, input: o["input"] ?? .object(JSONObject()),
                    handlers: handlers, actions: o["actions"]?.arrayValue ?? [], expect: expect)))
    }
}

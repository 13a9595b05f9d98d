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
                if found.isEmpty {
                    // A mistyped folder must not pass as "nothing failed".
                    missing.append(ConformanceInputError(file: path, message: "no *.json case file in this folder"))
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
    /// - Throws: ``ConformanceInputError`` when the file is unreadable, not JSON, or not a case,
    ///   or when any of its cases is malformed (the first such problem).
    public static func cases(inFile file: String) throws(ConformanceInputError) -> [ConformanceCase] {
        let (cases, problems) = try casesAndProblems(inFile: file)
        if let first = problems.first { throw first }
        return cases
    }

    /// The well-formed cases of one file, and a problem for each malformed case (which does not
    /// keep the others from running).
    ///
    /// - Throws: ``ConformanceInputError`` when the file is unreadable, not JSON, or not a case.
    public static func casesAndProblems(inFile file: String) throws(ConformanceInputError)
        -> (cases: [ConformanceCase], problems: [ConformanceInputError])
    {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConformanceInputError(file: file, message: "cannot read the file")
        }
        let bytes = [UInt8](data)
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes, limits: .init(maxDepth: caseFileMaxDepth))
        } catch {
            throw ConformanceInputError(file: file, message: "not JSON: \(error)")
        }
        let objects: [JSONValue]
        // Where each case object is in the file, to hand its sequences to the engine as written.
        let whole = JSONSpans.value(in: bytes, from: 0)
        var spans: [Range<Int>?]
        if case .array(let list)? = document["cases"] {
            // A file of no cases checks nothing: unusable, as an empty folder is.
            guard !list.isEmpty else { throw ConformanceInputError(file: file, message: "\"cases\" is empty: a case file holds at least one case") }
            objects = list
            let listSpan = whole.flatMap { JSONSpans.member("cases", in: bytes, of: $0) }
            let elements = listSpan.flatMap { JSONSpans.elements(in: bytes, of: $0) }
            spans = elements?.count == list.count ? elements!.map(Optional.some) : Array(repeating: nil, count: list.count)
        } else if document["expr"] != nil || document["sequence"] != nil {
            objects = [document]
            spans = [whole]
        } else {
            throw ConformanceInputError(file: file, message: "not a case: expected a case object or {\"cases\": [...]}")
        }
        var result: [ConformanceCase] = []
        var problems: [ConformanceInputError] = []
        for (i, object) in objects.enumerated() {
            do {
                result.append(try parseCase(object, file: file, index: i, bytes: bytes, span: spans[i]))
            } catch {
                problems.append(error)
            }
        }
        return (result, problems)
    }

    /// The deepest nesting read in a case file: well past the engine's 256 (SEMANTICS §1.1), so
    /// a case can hold a sequence nested too deeply and expect `too_deep_json` from the load.
    public static let caseFileMaxDepth = 1_024

    static func parseCase(
        _ object: JSONValue, file: String, index: Int, bytes: [UInt8] = [], span: Range<Int>? = nil
    ) throws(ConformanceInputError) -> ConformanceCase {
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
            case nil: break
            default:
                throw ConformanceInputError(
                    file: file, message: "case '\(name)': expect_error is a substring or true, got \(JSONWriter.string(o["expect_error"]!))")
            }
            guard o["expect"] != nil || o["expect_truthy"] != nil || expectedError != nil else {
                throw ConformanceInputError(
                    file: file, message: "case '\(name)' expects nothing: give expect, expect_truthy or expect_error")
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
        guard expect["state"] != nil || expect["load_error"] != nil else {
            throw ConformanceInputError(file: file, message: "case '\(name)': expect needs 'state' or 'load_error'")
        }
        var handlers: [String: [JSONValue]] = [:]
        if case .object(let h)? = o["handlers"] {
            for (k, v) in h { handlers[k] = v.arrayValue ?? [v] }
        }
        let extras = o["sequences"]?.arrayValue ?? []
        // The bytes as written where the file locates them, else the re-encoded value.
        let sequenceSpan = span.flatMap { JSONSpans.member("sequence", in: bytes, of: $0) }
        let extraSpans = span.flatMap { JSONSpans.member("sequences", in: bytes, of: $0) }.flatMap { JSONSpans.elements(in: bytes, of: $0) }
        let sequenceBytes = sequenceSpan.map { Array(bytes[$0]) } ?? JSONWriter.bytes(sequence)
        let extraBytes = extraSpans?.count == extras.count ? extraSpans!.map { Array(bytes[$0]) } : extras.map { JSONWriter.bytes($0) }
        return ConformanceCase(
            file: file, name: name,
            kind: .sequence(
                SequenceCase(
                    sequence: sequence, sequenceBytes: sequenceBytes, extraSequences: extras, extraSequenceBytes: extraBytes,
                    instanceID: o["instance_id"]?.stringValue, input: o["input"] ?? .object(JSONObject()),
                    handlers: handlers, actions: o["actions"]?.arrayValue ?? [], expect: expect)))
    }
}

import Foundation
import StepwiseExpressions
import StepwiseJSON
import Testing

/// One expression case of `Fixtures/conformance/expressions/*.json` (CONFORMANCE.md).
struct ExpressionCase: Sendable, CustomTestStringConvertible {
    let file: String
    let name: String
    let object: JSONObject

    var testDescription: String { "\(file) :: \(name)" }

    /// The folder of expression cases, found from this source file.
    static let folder: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/conformance/expressions")

    /// Every case of every file, in file order.
    static let all: [ExpressionCase] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var cases: [ExpressionCase] = []
        for file in files.sorted() where file.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(file).path),
                let root = try? JSONParser.parse(Array(data))
            else {
                cases.append(ExpressionCase(file: file, name: "<unreadable file>", object: [:]))
                continue
            }
            let list: [JSONValue]
            if case .array(let items)? = root["cases"] { list = items } else { list = [root] }
            for item in list {
                guard case .object(let o) = item else { continue }
                cases.append(ExpressionCase(file: file, name: o["name"]?.stringValue ?? "<unnamed>", object: o))
            }
        }
        return cases
    }()
}

struct ExpressionConformanceTests {
    @Test("the public suite has at least 160 expression cases with unique names")
    func suiteSize() {
        #expect(ExpressionCase.all.count >= 160)
        let names = ExpressionCase.all.map(\.testDescription)
        #expect(Set(names).count == names.count)
    }

    @Test("expression conformance case", arguments: ExpressionCase.all)
    func conformance(_ c: ExpressionCase) throws {
        let o = c.object
        let text = try #require(o["expr"]?.stringValue, "case has no expr")
        var scope = EvaluationScope()
        if let context = o["context"] {
            scope.data = context["data"] ?? [:]
            scope.config = context["config"] ?? [:]
        } else {
            scope.data = o["data"] ?? [:]
        }
        if case .object(let outputs)? = o["outputs"] { scope.outputs = outputs }

        let compiled: StepwiseExpressions.Expression
        do throws(ExpressionError) {
            compiled = try StepwiseExpressions.Expression.compile(text)
        } catch {
            let expected = try #require(o["expect_error"], "unexpected compile error: \(error)")
            if case .string(let fragment) = expected {
                #expect(error.description.contains(fragment), "\(error.description) does not contain \(fragment)")
            }
            return
        }
        let result = compiled.evaluate(scope)
        if let expected = o["expect_error"] {
            guard case .error(let message) = result else {
                Issue.record("expected an error, got \(result)")
                return
            }
            if case .string(let fragment) = expected {
                #expect(message.contains(fragment), "\(message) does not contain \(fragment)")
            }
            return
        }
        if let expected = o["expect"] {
            #expect(result == .value(expected), "expected \(expected), got \(result)")
        }
        if case .bool(let truthy)? = o["expect_truthy"] {
            #expect(result.truthiness == truthy)
        }
    }
}

import Foundation
public import StepwiseJSON

/// A JSON Schema (draft 2020-12) validator for the keywords Stepwise's schemas use.
///
/// Creating a validator compiles the schema and every document it may reference, and **throws on
/// any keyword it does not implement**, so a schema can never depend on a check that silently does
/// not happen. Implemented:
///
/// - types and values: `type` (`integer` = any number with no fractional part), `enum`, `const`;
/// - objects: `properties`, `patternProperties`, `additionalProperties`, `propertyNames`,
///   `required`, `dependentRequired`, `minProperties`, `maxProperties`;
/// - arrays: `items`, `prefixItems`, `contains` (+ `minContains`, `maxContains`), `minItems`,
///   `maxItems`, `uniqueItems`;
/// - numbers (compared exactly, integers and doubles mixed): `minimum`, `maximum`,
///   `exclusiveMinimum`, `exclusiveMaximum`;
/// - strings: `minLength`, `maxLength` (in Unicode scalars), `pattern` (Swift `Regex` with
///   Unicode-scalar semantics, unanchored search as ECMA-262 does);
/// - applicators: `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `$ref`, `$defs`;
/// - annotations with no effect: `$schema` (must be draft 2020-12), `$id` (document roots only),
///   `$comment`, `title`, `description`, `default`, `examples`, `deprecated`, `readOnly`,
///   `writeOnly`.
///
/// `$ref` accepts `#/json/pointer`, and document URIs (absolute, or relative to the referring
/// document's `$id`) optionally followed by `#/json/pointer`; plain-name anchors and `$dynamicRef`
/// are not supported. `format`, `multipleOf`, `unevaluated*` and `dependentSchemas` are refused.
///
/// ```swift
/// let validator = try JSONSchemaValidator(
///     schema: try JSONParser.parse(Array(schemaText.utf8)),
///     referencing: [otherSchema]
/// )
/// for violation in validator.validate(document) {
///     print(violation)   // "/blocks/0/retry/max_attempts: minimum: 0 is less than the minimum 1"
/// }
/// ```
///
/// The validator is an immutable value and is `Sendable`; `validate` may run concurrently.
public struct JSONSchemaValidator: Sendable {
    private let compiled: CompiledSchema
    private let root: Int

    /// Compiles `schema`, with `documents` available to its `$ref`s by their `$id`.
    ///
    /// - Parameters:
    ///   - schema: The schema to validate against: an object or a boolean.
    ///   - documents: Other schema documents (each with an absolute `$id`) that `schema` or each
    ///     other may reference.
    /// - Throws: ``JSONSchemaError`` when any document uses an unknown keyword, has a malformed
    ///   keyword value or an invalid `pattern`, a `$ref` does not resolve, two documents share an
    ///   `$id`, or references loop without descending into the instance. Nothing else is thrown.
    public init(schema: JSONValue, referencing documents: [JSONValue] = []) throws(JSONSchemaError) {
        var compiler = SchemaCompiler()
        root = try compiler.addDocument(schema)
        for document in documents {
            _ = try compiler.addDocument(document)
        }
        compiled = try compiler.finish()
    }

    /// Every violation of the schema by `instance`, in schema-then-instance order.
    ///
    /// Inside `anyOf`, `oneOf`, `not` and `if`, alternatives are only probed: a failing `anyOf`
    /// reports one violation at its instance location, whose message lists the first reason each
    /// alternative failed.
    ///
    /// - Parameter instance: The JSON value to check.
    /// - Returns: An empty array when `instance` is valid.
    /// - Complexity: O(instance size × schema size) in the worst case.
    public func validate(_ instance: JSONValue) -> [JSONSchemaViolation] {
        evaluate(instance, stopsAtFirst: false)
    }

    /// Whether `instance` satisfies the schema (stops at the first violation).
    public func isValid(_ instance: JSONValue) -> Bool {
        evaluate(instance, stopsAtFirst: true).isEmpty
    }

    /// Stack for the evaluation: it recurses with the instance's nesting times the schema's
    /// (a 64-level sequence goes hundreds of frames deep), more than a concurrency worker
    /// thread's stack holds in an unoptimised or sanitised build.
    static let evaluationStackBytes = 64 << 20

    /// Runs the recursive evaluator on a thread of its own with a large stack, and waits for it.
    private func evaluate(_ instance: JSONValue, stopsAtFirst: Bool) -> [JSONSchemaViolation] {
        let outcome = EvaluationOutcome()
        let schema = compiled
        let root = self.root
        let thread = Thread {
            var evaluator = SchemaEvaluator(schema: schema)
            var sink = ViolationSink(stopsAtFirst: stopsAtFirst)
            evaluator.evaluate(root, instance, at: .root, into: &sink)
            outcome.violations = sink.violations
            outcome.done.signal()
        }
        thread.stackSize = Self.evaluationStackBytes
        thread.start()
        outcome.done.wait()
        return outcome.violations
    }
}

/// Hands the violations from the evaluation thread to the caller.
private final class EvaluationOutcome: @unchecked Sendable {
    // Written once by the evaluation thread before `done` is signalled, read after the wait.
    var violations: [JSONSchemaViolation] = []
    let done = DispatchSemaphore(value: 0)
}

import StepwiseJSON
import StepwiseTesting

/// The sequence fixtures and the schema validators the tests share.
enum SequenceFixtures {
    /// Valid sequences, each loadable as is.
    static let validFolder = "Fixtures/sequences"
    /// One invalid sequence per validation rule, each with a `<name>.expected.json` sidecar.
    static let invalidFolder = "Fixtures/invalid-sequences"
    /// The three orch8 workflows, byte-identical to `../shared/fixtures/orch8-examples/`.
    static let orch8Examples = ["feature-access.json", "onboarding-flow.json", "payment-verification.json"]

    /// Paths (relative to the package root) of the valid fixtures.
    static let valid: [String] = PackageFiles.jsonFiles(in: validFolder)

    /// Names (no folder, no `.json`) of the invalid fixtures.
    static let invalid: [String] = PackageFiles.jsonFiles(in: invalidFolder)
        .filter { !$0.hasSuffix(".expected.json") }
        .map { String($0.dropFirst(invalidFolder.count + 1).dropLast(".json".count)) }

    /// Invalid fixtures whose every problem is beyond JSON Schema, so the schema accepts them:
    /// uniqueness, comparisons between two members, expression and template syntax, nesting and
    /// block-count limits. Every other invalid fixture must be rejected by the schema.
    static let beyondSchema: Set<String> = [
        "duplicate-id", "duplicate-id-in-hook",
        "invalid-retry-backoff-order",
        "invalid-choices-duplicate",
        "invalid-for-each-index-var",
        "invalid-ab-split-duplicate-name",
        "expression-router-condition", "expression-when", "expression-loop", "expression-retry-if",
        "expression-mixed-template",
        "template-filter", "template-root", "template-for-each-collection", "template-sub-sequence-input",
        "template-filter-arguments",
        "invalid-duration-integral-float-seconds",
        "too-deep", "too-many-blocks",
    ]

    /// Problem codes JSON Schema can never check (cross-document or language-level rules).
    static let codesBeyondSchema: Set<String> = ["duplicate_id", "expression", "template", "too_deep", "too_many_blocks"]

    /// The load-error codes of SEMANTICS §1.6 (plus the decoding ones of §1.1).
    static let knownCodes: Set<String> = [
        "invalid_json", "too_large", "too_deep_json",
        "missing_field", "wrong_type", "unknown_type", "unsupported", "empty_blocks", "empty_id", "duplicate_id",
        "empty_handler", "invalid_retry", "invalid_duration", "invalid_choices", "invalid_store_as", "no_branches",
        "too_many_branches", "invalid_loop", "invalid_for_each", "invalid_router", "invalid_try_catch",
        "invalid_sub_sequence", "invalid_ab_split", "invalid_scope", "expression", "template", "too_deep",
        "too_many_blocks",
    ]

    static let sequenceValidator: Result<JSONSchemaValidator, any Error> = Result {
        try SchemaCatalog.validator(for: SchemaCatalog.sequence)
    }

    static let conformanceValidator: Result<JSONSchemaValidator, any Error> = Result {
        try SchemaCatalog.validator(for: SchemaCatalog.conformanceCase)
    }

    /// The fixture's path relative to the package root.
    static func invalidPath(_ name: String) -> String { "\(invalidFolder)/\(name).json" }

    /// The problems the sidecar of invalid fixture `name` lists.
    static func expectedProblems(_ name: String) throws -> [ExpectedProblem] {
        let file = "\(invalidFolder)/\(name).expected.json"
        return try ExpectedProblem.list(fromSidecar: try PackageFiles.readJSON(file), file: file)
    }
}

extension JSONPointer {
    /// Whether `self` is `other` or one of its ancestors.
    func isPrefix(of other: JSONPointer) -> Bool {
        other.tokens.count >= tokens.count && Array(other.tokens.prefix(tokens.count)) == tokens
    }
}

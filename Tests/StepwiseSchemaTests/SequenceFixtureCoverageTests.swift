import StepwiseJSON
import StepwiseTesting
import Testing

/// The valid fixtures together exercise every block type, alias, field (SEMANTICS §1.5) and
/// envelope field (§1.2), so a decoder tested on them meets each at least once.
struct SequenceFixtureCoverageTests {
    private static let canonical: [String: String] = [
        "forEach": "for_each", "tryCatch": "try_catch", "subSequence": "sub_sequence",
        "abSplit": "a_b_split", "ab_split": "a_b_split", "cancellationScope": "cancellation_scope",
    ]

    /// Every field of §1.5 by canonical type; nested members as `object.member`.
    private static let requiredFields: [String: [String]] = [
        "step": [
            "id", "type", "handler", "params", "when", "delay", "delay.duration", "delay.jitter",
            "delay.business_days_only", "delay.holidays", "run_when", "run_when.network", "run_when.charging",
            "run_when.battery_not_low", "retry", "retry.max_attempts", "retry.initial_backoff", "retry.max_backoff",
            "retry.backoff_multiplier", "retry.retry_if", "retry.non_retryable_codes", "timeout", "cancellable",
            "wait_for_input", "wait_for_input.prompt", "wait_for_input.timeout", "wait_for_input.escalation_handler",
            "wait_for_input.choices", "wait_for_input.choices.label", "wait_for_input.choices.value",
            "wait_for_input.store_as", "wait_for_input.allow_comment", "queue_name", "fallback_handler", "compensation",
        ],
        "router": ["routes", "routes.condition", "routes.blocks", "default"],
        "parallel": ["branches", "fail_fast"],
        "race": ["branches", "semantics"],
        "loop": ["condition", "body", "max_iterations", "break_on", "continue_on_error", "poll_interval", "retain_iterations"],
        "for_each": ["collection", "item_var", "index_var", "body", "max_iterations", "max_concurrency", "retain_iterations"],
        "try_catch": ["try_block", "catch_block", "finally_block"],
        "sub_sequence": ["sequence_name", "version", "input"],
        "a_b_split": ["variants", "variants.name", "variants.weight", "variants.blocks"],
        "cancellation_scope": ["blocks"],
    ]

    private static let envelopeFields = [
        "name", "version", "blocks", "deprecated", "on_failure", "on_cancel", "id", "tenant_id", "namespace", "status",
        "created_at", "input_schema", "interceptors", "sla",
    ]

    private static let tags = [
        "step", "router", "parallel", "race", "loop", "for_each", "forEach", "try_catch", "tryCatch", "sub_sequence",
        "subSequence", "a_b_split", "abSplit", "ab_split", "cancellation_scope", "cancellationScope",
    ]

    private struct Coverage {
        var fields: Set<String> = []  // "<canonical type> <field path>"
        var tags: Set<String> = []
        var envelope: Set<String> = []

        mutating func visit(list: JSONValue?) {
            for block in list?.arrayValue ?? [] { visit(block: block) }
        }

        mutating func visit(block: JSONValue) {
            guard let object = block.objectValue, let tag = object["type"]?.stringValue else { return }
            tags.insert(tag)
            let type = SequenceFixtureCoverageTests.canonical[tag] ?? tag
            for (key, value) in object {
                fields.insert("\(type) \(key)")
                if ["delay", "run_when", "retry", "wait_for_input"].contains(key), let nested = value.objectValue {
                    for (member, inner) in nested {
                        fields.insert("\(type) \(key).\(member)")
                        if member == "choices" {
                            for choice in inner.arrayValue ?? [] {
                                for choiceKey in choice.objectValue?.keys ?? [] {
                                    fields.insert("\(type) \(key).choices.\(choiceKey)")
                                }
                            }
                        }
                    }
                }
            }
            for key in ["body", "try_block", "catch_block", "finally_block", "blocks", "default"] {
                visit(list: object[key])
            }
            for route in object["routes"]?.arrayValue ?? [] {
                for key in route.objectValue?.keys ?? [] { fields.insert("\(type) routes.\(key)") }
                visit(list: route["blocks"])
            }
            for branch in object["branches"]?.arrayValue ?? [] { visit(list: branch) }
            for variant in object["variants"]?.arrayValue ?? [] {
                for key in variant.objectValue?.keys ?? [] { fields.insert("\(type) variants.\(key)") }
                visit(list: variant["blocks"])
            }
        }
    }

    private func coverage() throws -> Coverage {
        var coverage = Coverage()
        for path in SequenceFixtures.valid {
            let document = try PackageFiles.readJSON(path)
            coverage.envelope.formUnion(document.objectValue?.keys ?? [])
            for list in ["blocks", "on_failure", "on_cancel"] {
                coverage.visit(list: document[list])
            }
        }
        return coverage
    }

    @Test func everyFieldOfEveryBlockIsUsed() throws {
        let found = try coverage().fields
        var missing: [String] = []
        for (type, fields) in Self.requiredFields.sorted(by: { $0.key < $1.key }) {
            missing += fields.map { "\(type) \($0)" }.filter { !found.contains($0) }
        }
        #expect(missing.isEmpty, "fields no valid fixture uses: \(missing)")
    }

    @Test func everyTypeTagAndAliasIsUsed() throws {
        let found = try coverage().tags
        #expect(Set(Self.tags).subtracting(found).isEmpty, "tags no valid fixture uses: \(Set(Self.tags).subtracting(found).sorted())")
    }

    @Test func everyEnvelopeFieldIsUsed() throws {
        let found = try coverage().envelope
        #expect(Set(Self.envelopeFields).subtracting(found).isEmpty)
    }
}

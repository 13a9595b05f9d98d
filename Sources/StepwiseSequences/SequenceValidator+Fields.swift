import StepwiseJSON

/// The member names each object kind knows, built once (validation runs on every load).
extension SequenceValidator {
    static let routerFields: Set<String> = commonBlockFields.union(["routes", "default"])
    static let parallelFields: Set<String> = commonBlockFields.union(["branches", "fail_fast"])
    static let raceFields: Set<String> = commonBlockFields.union(["branches", "semantics"])
    static let loopFields: Set<String> = commonBlockFields.union([
                "condition", "body", "max_iterations", "break_on", "continue_on_error", "poll_interval",
            ])
    static let forEachFields: Set<String> = commonBlockFields.union([
                "collection", "item_var", "index_var", "body", "max_iterations", "max_concurrency",
            ])
    /// orch8's iteration-history bound (loop, for_each): accepted and ignored (SEMANTICS §1.5).
    static let ignoredIterationFields: Set<String> = ["retain_iterations"]
    static let tryCatchFields: Set<String> = commonBlockFields.union(["try_block", "catch_block", "finally_block"])
    static let subSequenceFields: Set<String> = commonBlockFields.union(["sequence_name", "version", "input"])
    static let abSplitFields: Set<String> = commonBlockFields.union(["variants"])
    static let scopeFields: Set<String> = commonBlockFields.union(["blocks"])
    static let routeFields: Set<String> = ["condition", "blocks"]
    static let variantFields: Set<String> = ["name", "weight", "blocks"]
    static let delayFields: Set<String> = ["duration", "jitter", "business_days_only", "holidays", "fire_at_local", "timezone"]
    static let runWhenFields: Set<String> = ["network", "charging", "battery_not_low"]
    static let retryFields: Set<String> = ["max_attempts", "initial_backoff", "max_backoff", "backoff_multiplier", "retry_if", "non_retryable_codes"]
    static let waitForInputFields: Set<String> = ["prompt", "timeout", "escalation_handler", "choices", "store_as", "allow_comment"]
    static let choiceFields: Set<String> = ["label", "value"]
    static let stepAndUnsupportedFields: Set<String> = stepFields.union(unsupportedStepFields)
}

/// The field-name sets above as ``JSONKeySet``s, which `checkFields` compares against each
/// object's own keys without hashing (a `Set<String>` lookup per member was a tenth of a load).
enum FieldKeys {
    static let abSplitFields = JSONKeySet(SequenceValidator.abSplitFields)
    static let choiceFields = JSONKeySet(SequenceValidator.choiceFields)
    static let delayFields = JSONKeySet(SequenceValidator.delayFields)
    static let envelopeFields = JSONKeySet(SequenceValidator.envelopeFields)
    static let forEachFields = JSONKeySet(SequenceValidator.forEachFields)
    static let ignoredEnvelopeFields = JSONKeySet(SequenceValidator.ignoredEnvelopeFields)
    static let ignoredIterationFields = JSONKeySet(SequenceValidator.ignoredIterationFields)
    static let ignoredStepFields = JSONKeySet(SequenceValidator.ignoredStepFields)
    static let loopFields = JSONKeySet(SequenceValidator.loopFields)
    static let parallelFields = JSONKeySet(SequenceValidator.parallelFields)
    static let raceFields = JSONKeySet(SequenceValidator.raceFields)
    static let retryFields = JSONKeySet(SequenceValidator.retryFields)
    static let routeFields = JSONKeySet(SequenceValidator.routeFields)
    static let routerFields = JSONKeySet(SequenceValidator.routerFields)
    static let runWhenFields = JSONKeySet(SequenceValidator.runWhenFields)
    static let scopeFields = JSONKeySet(SequenceValidator.scopeFields)
    static let stepAndUnsupportedFields = JSONKeySet(SequenceValidator.stepAndUnsupportedFields)
    static let subSequenceFields = JSONKeySet(SequenceValidator.subSequenceFields)
    static let tryCatchFields = JSONKeySet(SequenceValidator.tryCatchFields)
    static let variantFields = JSONKeySet(SequenceValidator.variantFields)
    static let waitForInputFields = JSONKeySet(SequenceValidator.waitForInputFields)
}

/// The code of a validation problem or warning, as it appears in data (`snake_case`).
///
/// The error codes are those of SEMANTICS §1.6; the warning codes name what an author may want
/// to fix but that does not stop a sequence from loading.
public struct ProblemCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code's text.
    public let rawValue: String
    /// Wraps a code.
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // Load errors.
    /// Bytes that are not acceptable JSON (with the byte offset in the message).
    public static let invalidJSON = ProblemCode(rawValue: "invalid_json")
    /// JSON nesting over 256.
    public static let tooDeepJSON = ProblemCode(rawValue: "too_deep_json")
    /// Document over the size cap.
    public static let tooLarge = ProblemCode(rawValue: "too_large")
    /// A required field is absent.
    public static let missingField = ProblemCode(rawValue: "missing_field")
    /// A field has the wrong JSON type or an out-of-range value with no more specific code.
    public static let wrongType = ProblemCode(rawValue: "wrong_type")
    /// A missing or unknown block `type`.
    public static let unknownType = ProblemCode(rawValue: "unknown_type")
    /// A feature that could change the path taken and that v1 does not implement.
    public static let unsupported = ProblemCode(rawValue: "unsupported")
    /// The root `blocks` list is empty.
    public static let emptyBlocks = ProblemCode(rawValue: "empty_blocks")
    /// A block `id` is empty.
    public static let emptyID = ProblemCode(rawValue: "empty_id")
    /// A block `id` is used twice in one id space.
    public static let duplicateID = ProblemCode(rawValue: "duplicate_id")
    /// A `handler` or `escalation_handler` is blank.
    public static let emptyHandler = ProblemCode(rawValue: "empty_handler")
    /// A `retry` policy is inconsistent.
    public static let invalidRetry = ProblemCode(rawValue: "invalid_retry")
    /// A duration is negative, non-numeric or too large.
    public static let invalidDuration = ProblemCode(rawValue: "invalid_duration")
    /// `wait_for_input.choices` is empty, has a bad value or a duplicate.
    public static let invalidChoices = ProblemCode(rawValue: "invalid_choices")
    /// `wait_for_input.store_as` is empty.
    public static let invalidStoreAs = ProblemCode(rawValue: "invalid_store_as")
    /// A parallel or race without branches.
    public static let noBranches = ProblemCode(rawValue: "no_branches")
    /// A parallel or race with more than 256 branches.
    public static let tooManyBranches = ProblemCode(rawValue: "too_many_branches")
    /// A loop with a blank condition, an empty body or `max_iterations` out of range.
    public static let invalidLoop = ProblemCode(rawValue: "invalid_loop")
    /// A for_each with a bad collection, body, variable or bound.
    public static let invalidForEach = ProblemCode(rawValue: "invalid_for_each")
    /// A router with no route and no default, or a blank route condition.
    public static let invalidRouter = ProblemCode(rawValue: "invalid_router")
    /// A try_catch with an empty `try_block`.
    public static let invalidTryCatch = ProblemCode(rawValue: "invalid_try_catch")
    /// A sub_sequence with a blank name or a bad version or input.
    public static let invalidSubSequence = ProblemCode(rawValue: "invalid_sub_sequence")
    /// An a_b_split with too few variants, bad names or weights.
    public static let invalidABSplit = ProblemCode(rawValue: "invalid_ab_split")
    /// A cancellation_scope with no blocks.
    public static let invalidScope = ProblemCode(rawValue: "invalid_scope")
    /// A condition that does not compile.
    public static let expression = ProblemCode(rawValue: "expression")
    /// A `{{ }}` template that does not compile.
    public static let template = ProblemCode(rawValue: "template")
    /// Block nesting over 64.
    public static let tooDeep = ProblemCode(rawValue: "too_deep")
    /// More than 5000 blocks.
    public static let tooManyBlocks = ProblemCode(rawValue: "too_many_blocks")

    // Warnings.
    /// A field Stepwise does not know; ignored.
    public static let unknownField = ProblemCode(rawValue: "unknown_field")
    /// A known orch8 field that has no effect in Stepwise; ignored.
    public static let ignoredField = ProblemCode(rawValue: "ignored_field")
    /// A for_each collection path that probably meant to be a template.
    public static let suspiciousCollection = ProblemCode(rawValue: "suspicious_collection")
    /// `now()`, `uuid()` or `random()` in a condition.
    public static let nondeterministicCondition = ProblemCode(rawValue: "nondeterministic_condition")
    /// An a_b_split variant with weight 0 (never chosen).
    public static let zeroWeight = ProblemCode(rawValue: "zero_weight")
}

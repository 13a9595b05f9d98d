/// The evaluation cost budget (SEMANTICS §3.9): 1,000,000 units per evaluation, one per node
/// evaluated and one per array element or 64 string bytes a function touches.
///
/// Once exhausted it stays exhausted: every later charge fails too, so no node can produce a
/// value after the limit was hit.
struct CostBudget {
    /// Units per evaluation.
    static let limit = 1_000_000

    /// Units left; negative once exceeded.
    private(set) var remaining: Int

    init(units: Int = CostBudget.limit) {
        remaining = units
    }

    /// Spends `units`.
    ///
    /// - Throws: ``EvaluationFailure/costLimitExceeded`` when the budget is overdrawn.
    @inline(__always)
    mutating func charge(_ units: Int) throws(EvaluationFailure) {
        remaining &-= units
        if remaining < 0 { throw .costLimitExceeded }
    }

    /// Spends one unit per started block of 64 bytes.
    @inline(__always)
    mutating func chargeBytes(_ count: Int) throws(EvaluationFailure) {
        try charge((count + 63) / 64)
    }
}

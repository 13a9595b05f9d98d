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
        try charge(count / 64 + (count % 64 == 0 ? 0 : 1))
    }

    /// The most bytes ``chargeBytes(_:)`` can still be charged for without failing (saturating
    /// for an unlimited budget); 0 once exhausted.
    var affordableBytes: Int {
        guard remaining > 0 else { return 0 }
        let (bytes, overflow) = remaining.multipliedReportingOverflow(by: 64)
        return overflow ? .max : bytes
    }

    /// Overdraws the budget and returns the failure to throw: for work found to cost more than
    /// is left before it was done.
    mutating func exhaust() -> EvaluationFailure {
        remaining = -1
        return .costLimitExceeded
    }
}

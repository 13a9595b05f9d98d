extension Int64 {
    /// `self - other`, clamped to the range instead of trapping: stored times come from a file
    /// that may be damaged (an `Int64.min` deadline), and a difference of them must not crash
    /// every reopen of the database.
    func saturatingMinus(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }
}

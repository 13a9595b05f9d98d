/// Collects violations; in probing mode it stops at the first one (for `anyOf`, `not`, `if`, ...).
struct ViolationSink {
    /// Stop evaluating as soon as one violation is known.
    let stopsAtFirst: Bool
    /// What failed so far.
    var violations: [JSONSchemaViolation] = []

    /// Whether evaluation can stop.
    var isDone: Bool { stopsAtFirst && !violations.isEmpty }
}

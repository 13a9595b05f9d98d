/// Consumes a value so the optimiser cannot remove the computation that produced it.
///
/// ```swift
/// blackHole(try JSONParser.parse(bytes))
/// ```
@inline(never)
@_optimize(none)
public func blackHole<T>(_ value: T) {}

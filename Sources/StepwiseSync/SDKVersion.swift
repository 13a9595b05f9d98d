/// `min_sdk_version` comparison (SYNC.md §3.7 E2): dotted numbers, missing components are 0.
package enum SDKVersion {
    /// Whether `current` is at least `minimum`.
    ///
    /// Components are compared as unbounded decimal numbers (`1.10` > `1.9`, `1.2` = `1.2.0`).
    /// Any component of either side that is empty or not all ASCII digits fails closed (`false`).
    package static func satisfies(minimum: String, current: String) -> Bool {
        guard let lhs = components(minimum), let rhs = components(current) else { return false }
        for i in 0..<max(lhs.count, rhs.count) {
            let a = i < lhs.count ? lhs[i] : "0"
            let b = i < rhs.count ? rhs[i] : "0"
            if a.count != b.count { return a.count < b.count }
            if a != b { return a < b }
        }
        return true
    }

    /// Whether `text` is dotted numbers (`1`, `0.1.0`).
    package static func isWellFormed(_ text: String) -> Bool { components(text) != nil }

    /// The components without leading zeros, or `nil` when one is not numeric.
    private static func components(_ text: String) -> [String]? {
        var result: [String] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            let trimmed = part.drop { $0 == "0" }
            result.append(trimmed.isEmpty ? "0" : String(trimmed))
        }
        return result
    }
}

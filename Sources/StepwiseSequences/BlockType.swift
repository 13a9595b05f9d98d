/// The ten block types and the tags that select them (SEMANTICS §1.3).
public enum BlockType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A handler call (SEMANTICS §2.3).
    case step
    /// The first route whose condition holds, chosen once (§2.8).
    case router
    /// Every branch at once; optional fail_fast (§2.8).
    case parallel
    /// Branches at once; the first to resolve (or succeed) wins (§2.8).
    case race
    /// Its body while a condition holds, up to max_iterations (§2.8).
    case loop
    /// Its body once per element of a collection (§2.8).
    case forEach = "for_each"
    /// A try list, a catch list run on failure, a finally list run always (§2.8).
    case tryCatch = "try_catch"
    /// A child instance of another sequence (§2.8).
    case subSequence = "sub_sequence"
    /// One weighted variant chosen by the SHA-256 rule (§2.8).
    case abSplit = "a_b_split"
    /// A list that runs to completion once started, even on cancel (§2.10).
    case cancellationScope = "cancellation_scope"

    /// The canonical (orch8) tag.
    public var canonicalTag: String { rawValue }
    public var description: String { rawValue }

    /// The type a tag selects, accepting the canonical tags and their aliases.
    public init?(tag: String) {
        switch tag {
        case "step": self = .step
        case "router": self = .router
        case "parallel": self = .parallel
        case "race": self = .race
        case "loop": self = .loop
        case "for_each", "forEach": self = .forEach
        case "try_catch", "tryCatch": self = .tryCatch
        case "sub_sequence", "subSequence": self = .subSequence
        case "a_b_split", "abSplit", "ab_split": self = .abSplit
        case "cancellation_scope", "cancellationScope": self = .cancellationScope
        default: return nil
        }
    }

    /// The canonical tags, comma-separated, for messages.
    public static let canonicalList = allCases.map(\.rawValue).joined(separator: ", ")
}

/// The ten block types and the tags that select them (SEMANTICS §1.3).
public enum BlockType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case step
    case router
    case parallel
    case race
    case loop
    case forEach = "for_each"
    case tryCatch = "try_catch"
    case subSequence = "sub_sequence"
    case abSplit = "a_b_split"
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

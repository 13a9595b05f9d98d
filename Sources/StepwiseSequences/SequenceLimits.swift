/// The bounds a sequence document must respect (SEMANTICS §1.7).
public struct SequenceLimits: Sendable, Hashable {
    /// Largest accepted document, in bytes (`maxSequenceSizeBytes`).
    public var maxDocumentBytes: Int
    /// Deepest JSON nesting.
    public var maxJSONDepth: Int
    /// Deepest block nesting (root blocks are depth 1).
    public var maxBlockDepth: Int
    /// Most blocks in one document.
    public var maxBlocks: Int
    /// Most branches of one parallel or race.
    public var maxBranches: Int

    /// The defaults of SEMANTICS §1.7.
    public init(
        maxDocumentBytes: Int = 1_048_576,
        maxJSONDepth: Int = 256,
        maxBlockDepth: Int = 64,
        maxBlocks: Int = 5000,
        maxBranches: Int = 256
    ) {
        self.maxDocumentBytes = maxDocumentBytes
        self.maxJSONDepth = maxJSONDepth
        self.maxBlockDepth = maxBlockDepth
        self.maxBlocks = maxBlocks
        self.maxBranches = maxBranches
    }

    /// Most loop or for_each iterations.
    public static let maxIterations = 100_000
    /// Most concurrent for_each iterations.
    public static let maxForEachConcurrency = 64
    /// Largest duration in milliseconds (2⁵³).
    public static let maxDurationMilliseconds: Int64 = 9_007_199_254_740_992
}

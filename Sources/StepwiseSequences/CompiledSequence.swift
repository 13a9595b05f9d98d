public import StepwiseJSON

/// A validated, compiled, immutable sequence: the program an engine runs.
///
/// Every condition and template was compiled during validation, so running it never meets a
/// syntax error. The original bytes are kept: stored and echoed documents are byte-identical.
public struct CompiledSequence: Sendable {
    /// The sequence name (key for `start` and `sub_sequence`).
    public let name: String
    /// The version; (name, version) is immutable once stored.
    public let version: Int
    /// Whether this version may be chosen as "latest".
    public let isDeprecated: Bool
    /// The root list.
    public let blocks: [Block]
    /// Run once when an instance ends `failed`.
    public let onFailure: [Block]?
    /// Run once when an instance ends `cancelled`.
    public let onCancel: [Block]?
    /// Preserved envelope fields (`id`, `tenant_id`, `namespace`, `status`, `created_at`, `input_schema`).
    public let envelope: JSONObject
    /// The document exactly as received.
    public let sourceBytes: [UInt8]
    /// Every handler name used (step handlers and escalation handlers), sorted.
    public let handlerNames: [String]
    /// Number of blocks in the document, hooks included.
    public let blockCount: Int

    /// Creates a compiled sequence (normally done by ``SequenceLoader``).
    public init(
        name: String, version: Int, isDeprecated: Bool, blocks: [Block], onFailure: [Block]?, onCancel: [Block]?,
        envelope: JSONObject, sourceBytes: [UInt8], handlerNames: [String], blockCount: Int
    ) {
        self.name = name
        self.version = version
        self.isDeprecated = isDeprecated
        self.blocks = blocks
        self.onFailure = onFailure
        self.onCancel = onCancel
        self.envelope = envelope
        self.sourceBytes = sourceBytes
        self.handlerNames = handlerNames
        self.blockCount = blockCount
    }

    /// Visits every block of the main tree and the hooks, parents before children.
    public func forEachBlock(_ body: (Block) throws -> Void) rethrows {
        func visit(_ list: [Block]) throws {
            for block in list {
                try body(block)
                for child in block.childLists { try visit(child) }
            }
        }
        try visit(blocks)
        if let onFailure { try visit(onFailure) }
        if let onCancel { try visit(onCancel) }
    }
}

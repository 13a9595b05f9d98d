public import StepwiseJSON
public import StepwiseSequences

/// A failure recorded on a node: the message as its origin gave it, its code, and where it
/// started.
public struct NodeError: Sendable, Hashable {
    /// The message without any block prefix.
    public var message: String
    /// The error code, when the origin gave one.
    public var code: String?
    /// The block where the failure originated (`nil` for instance-level failures).
    public var originBlock: BlockID?
    /// The type of the originating block.
    public var originType: BlockType?

    /// Creates an error.
    public init(message: String, code: String? = nil, originBlock: BlockID? = nil, originType: BlockType? = nil) {
        self.message = message
        self.code = code
        self.originBlock = originBlock
        self.originType = originType
    }

    /// The message prefixed by its origin (SEMANTICS §2.11): `step 'save' failed: disk full`,
    /// `router 'gate': …`; unprefixed for instance-level failures such as `lifetime exceeded`.
    public var prefixedMessage: String {
        guard let originBlock, let originType else { return message }
        switch originType {
        case .step: return "step '\(originBlock)' failed: \(message)"
        default: return "\(originType.rawValue) '\(originBlock)': \(message)"
        }
    }

    /// The error as JSON: `{message, code?, block_id?, block_type?}`.
    public var jsonValue: JSONValue {
        var o: JSONObject = ["message": .string(message)]
        if let code { o["code"] = .string(code) }
        if let originBlock { o["block_id"] = .string(originBlock.rawValue) }
        if let originType { o["block_type"] = .string(originType.rawValue) }
        return .object(o)
    }

    /// Reads the JSON form back.
    public init?(json: JSONValue) {
        guard case .string(let m)? = json["message"] else { return nil }
        message = m
        code = json["code"]?.stringValue
        originBlock = json["block_id"]?.stringValue.map { BlockID($0) }
        originType = json["block_type"]?.stringValue.flatMap(BlockType.init(rawValue:))
    }
}

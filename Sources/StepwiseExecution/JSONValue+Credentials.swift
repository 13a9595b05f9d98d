import StepwiseJSON

extension JSONValue {
    /// The prefix of a secret reference resolved by the sync server (SYNC.md §2.8).
    static let credentialsScheme = "credentials://"

    /// Whether any string in the value (at any depth) starts with `credentials://`.
    ///
    /// Walks the value with an explicit stack: params come from sequence documents and data.
    var containsCredentialReference: Bool {
        var stack: [JSONValue] = [self]
        while let value = stack.popLast() {
            switch value {
            case .string(let text) where text.hasPrefix(Self.credentialsScheme): return true
            case .array(let items): stack.append(contentsOf: items)
            case .object(let members): stack.append(contentsOf: members.values)
            default: continue
            }
        }
        return false
    }
}

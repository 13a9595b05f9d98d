import StepwiseJSON

/// The compiled form of a set of schema documents: every subschema is a node in one array, and
/// `$ref`s are node indices. Immutable once built.
struct CompiledSchema: Sendable {
    /// All nodes; a node's index is its identity.
    var nodes: [SchemaNode]
    /// Regular expressions by index (`pattern`, `patternProperties`), as written in the schema.
    var patterns: [String]
    /// Node index by absolute location (`<$id>#<pointer>`).
    var locations: [String: Int]
}

/// One compiled subschema.
struct SchemaNode: Sendable {
    /// Absolute location of the subschema (`<$id>#<pointer>`).
    var location: String
    /// `true`/`false` for boolean schemas, `nil` for object schemas.
    var constant: Bool?
    /// The checking keywords, in schema order.
    var keywords: [SchemaKeyword]
}

/// One checking keyword of a node.
struct SchemaKeyword: Sendable {
    /// The keyword as written (`minItems`).
    var name: String
    /// Absolute location of the keyword.
    var location: String
    /// What it checks.
    var rule: SchemaRule
}

import StepwiseJSON

/// A property name paired with the node that checks its value.
struct NamedNode: Sendable {
    var name: String
    var node: Int
}

/// A pattern (by index) paired with the node that checks matching members.
struct PatternNode: Sendable {
    var pattern: Int
    var node: Int
}

/// What a keyword checks. Node operands are indices into ``CompiledSchema/nodes``.
enum SchemaRule: Sendable {
    case type([SchemaType])
    case enumeration([JSONValue])
    case constant(JSONValue)
    case properties([NamedNode])
    case patternProperties([PatternNode])
    /// Members named in neither `properties` nor matched by `patternProperties`.
    case additionalProperties(node: Int, declared: Set<String>, patterns: [Int])
    case propertyNames(Int)
    case required([String])
    case dependentRequired([(property: String, requires: [String])])
    case minProperties(Int)
    case maxProperties(Int)
    case prefixItems([Int])
    /// Elements from index `from` on (after `prefixItems`).
    case items(node: Int, from: Int)
    case contains(node: Int, minimum: Int, maximum: Int?)
    case minItems(Int)
    case maxItems(Int)
    case uniqueItems
    case minimum(JSONValue)
    case maximum(JSONValue)
    case exclusiveMinimum(JSONValue)
    case exclusiveMaximum(JSONValue)
    case minLength(Int)
    case maxLength(Int)
    case pattern(Int)
    case allOf([Int])
    case anyOf([Int])
    case oneOf([Int])
    case not(Int)
    case conditional(condition: Int, then: Int?, else: Int?)
    /// A `$ref`; `target` is `-1` until references are resolved.
    case reference(target: Int, uri: String)
}

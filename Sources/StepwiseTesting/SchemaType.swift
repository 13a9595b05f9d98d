import StepwiseJSON

/// The JSON Schema type names.
enum SchemaType: String, Sendable, CaseIterable {
    case null, boolean, object, array, number, string, integer

    /// Whether `value` is of this type; `integer` is any number with no fractional part.
    func matches(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.null, .null), (.boolean, .bool), (.object, .object), (.array, .array), (.string, .string):
            return true
        case (.number, .integer), (.number, .double), (.integer, .integer):
            return true
        case (.integer, .double(let d)):
            return d.isFinite && d.rounded(.towardZero) == d
        default:
            return false
        }
    }

    /// The type name of an instance, as JSON Schema names it (`integer` for integral numbers).
    static func name(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .integer: "integer"
        case .double(let d): d.rounded(.towardZero) == d ? "integer" : "number"
        }
    }
}

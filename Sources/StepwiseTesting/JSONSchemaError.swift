/// A schema the validator cannot use: an unknown or malformed keyword, a reference that does not
/// resolve, or a reference cycle that would never consume the instance.
///
/// The validator refuses such schemas when it is created, so a schema can never rely on a keyword
/// that is silently left unchecked.
///
/// ```swift
/// do {
///     _ = try JSONSchemaValidator(schema: ["format": "email"])
/// } catch {
///     error.code      // .unknownKeyword
///     error.context   // "urn:stepwise-testing:schema:0#"
/// }
/// ```
public struct JSONSchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of schema defect this is.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's text.
        public let rawValue: String
        /// Wraps a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        /// A keyword the validator does not implement (including `format` and other annotations
        /// whose checking is optional in draft 2020-12).
        public static let unknownKeyword = Code(rawValue: "unknownKeyword")
        /// A keyword whose value has the wrong shape (`"minItems": -1`, an invalid `pattern`, ...).
        public static let invalidKeywordValue = Code(rawValue: "invalidKeywordValue")
        /// A `$ref` that names no compiled subschema.
        public static let unresolvedReference = Code(rawValue: "unresolvedReference")
        /// `$ref`s and in-place applicators that loop back without consuming the instance.
        public static let referenceCycle = Code(rawValue: "referenceCycle")
        /// Two schema documents with the same `$id`.
        public static let duplicateSchemaID = Code(rawValue: "duplicateSchemaID")
    }

    /// The kind of defect.
    public let code: Code
    /// What is wrong, naming the keyword and value at fault.
    public let message: String
    /// Where: the schema's `$id`, `#` and the JSON pointer of the offending schema object.
    public let context: String

    /// Creates an error.
    public init(code: Code, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
    }

    /// `<context>: <code>: <message>`.
    public var description: String { "\(context): \(code): \(message)" }
}

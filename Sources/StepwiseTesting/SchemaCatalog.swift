import StepwiseJSON

/// The project's JSON Schemas (`Schemas/*.schema.json`), ready to validate with.
///
/// Every schema in the folder is loaded, so cross-file `$ref`s (a conformance case's
/// `sequence` → `sequence.schema.json`) resolve.
///
/// ```swift
/// let validator = try SchemaCatalog.validator(for: SchemaCatalog.sequence)
/// #expect(validator.validate(document).isEmpty)
/// ```
public enum SchemaCatalog {
    /// The folder holding the schemas, relative to the package root.
    public static let folder = "Schemas"
    /// The sequence document schema.
    public static let sequence = "Schemas/sequence.schema.json"
    /// The conformance case file schema.
    public static let conformanceCase = "Schemas/conformance-case.schema.json"

    /// A validator for the schema file at `relativePath`, with every other schema of the folder
    /// available to its `$ref`s.
    ///
    /// - Throws: ``FixtureError`` when a schema file cannot be read or parsed, ``JSONSchemaError``
    ///   when a schema is unusable.
    public static func validator(for relativePath: String) throws -> JSONSchemaValidator {
        let main = try PackageFiles.readJSON(relativePath)
        var others: [JSONValue] = []
        for file in PackageFiles.jsonFiles(in: folder) where file != relativePath && file.hasSuffix(".schema.json") {
            others.append(try PackageFiles.readJSON(file))
        }
        return try JSONSchemaValidator(schema: main, referencing: others)
    }
}

import StepwiseJSON

/// The project's JSON Schemas (`Schemas/*.schema.json`), ready to validate with.
///
/// Every schema in the folder is loaded, so cross-file `$ref`s (a conformance case's
/// `sequence` → `sequence.schema.json`) resolve.
///
/// ```swift
/// let validator = try SchemaCatalog.validator(for: SchemaCatalog.sequence)
/// #expect(validator.validate(document).isEmpty)
/// let devices = try SchemaCatalog.validator(for: SchemaCatalog.serverAPI, definition: "deviceList")
/// ```
public enum SchemaCatalog {
    /// The folder holding the schemas, relative to the package root.
    public static let folder = "Schemas"
    /// The sequence document schema.
    public static let sequence = "Schemas/sequence.schema.json"
    /// The conformance case file schema.
    public static let conformanceCase = "Schemas/conformance-case.schema.json"
    /// The signed manifest body schema.
    public static let manifest = "Schemas/manifest.schema.json"
    /// The sync-channel request body schema (devices → server).
    public static let syncRequest = "Schemas/sync-request.schema.json"
    /// The sync-channel response body schema (server → devices).
    public static let syncResponse = "Schemas/sync-response.schema.json"
    /// The device registration body schema (devices → server).
    public static let deviceRegistration = "Schemas/device-registration.schema.json"
    /// The telemetry flush body schema (devices → server).
    public static let telemetryRequest = "Schemas/telemetry-request.schema.json"
    /// The reference server's operator API bodies; validate against one of its `$defs`.
    public static let serverAPI = "Schemas/server-api.schema.json"
    /// `stepwise conformance --json`.
    public static let conformanceReport = "Schemas/conformance-report.schema.json"
    /// `stepwise validate --json`.
    public static let validateReport = "Schemas/validate-report.schema.json"
    /// `stepwise verify-manifest --json`.
    public static let verifyManifestReport = "Schemas/verify-manifest-report.schema.json"
    /// `stepwise show --json` (and the `instance` of a run report).
    public static let instanceReport = "Schemas/instance-report.schema.json"
    /// `stepwise run --json` and `stepwise resume --json`.
    public static let runReport = "Schemas/run-report.schema.json"
    /// `stepwise instances --json`.
    public static let instancesReport = "Schemas/instances-report.schema.json"
    /// `stepwise dead-letters --json` (listing and actions).
    public static let deadLettersReport = "Schemas/dead-letters-report.schema.json"
    /// `stepwise sequences --json`.
    public static let sequencesReport = "Schemas/sequences-report.schema.json"
    /// `stepwise sync --json`.
    public static let syncReport = "Schemas/sync-report.schema.json"

    /// A validator for the schema file at `relativePath`, with every other schema of the folder
    /// available to its `$ref`s.
    ///
    /// - Throws: ``FixtureError`` when a schema file cannot be read or parsed, ``JSONSchemaError``
    ///   when a schema is unusable.
    public static func validator(for relativePath: String) throws -> JSONSchemaValidator {
        let main = try PackageFiles.readJSON(relativePath)
        return try JSONSchemaValidator(schema: main, referencing: try schemas(except: relativePath))
    }

    /// A validator for the definition `#/$defs/<definition>` of the schema file at
    /// `relativePath` (a file that bundles several documents, such as the server API's bodies),
    /// with every schema of the folder available to its `$ref`s.
    ///
    /// - Throws: ``FixtureError`` when a schema file cannot be read or parsed, or when the file
    ///   has no `$id` or no such definition; ``JSONSchemaError`` when a schema is unusable.
    public static func validator(for relativePath: String, definition: String) throws -> JSONSchemaValidator {
        let main = try PackageFiles.readJSON(relativePath)
        guard case .string(let id)? = main["$id"] else {
            throw FixtureError(code: .malformed, message: "the schema has no $id to refer to", context: relativePath)
        }
        guard main["$defs"]?[definition] != nil else {
            throw FixtureError(code: .malformed, message: "no definition '\(definition)' in $defs", context: relativePath)
        }
        let reference: JSONValue = [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": .string(id + "#" + JSONPointer(tokens: ["$defs", definition]).description),
        ]
        return try JSONSchemaValidator(schema: reference, referencing: try schemas(except: nil))
    }

    /// Every schema file of the folder but `excluded`, parsed.
    private static func schemas(except excluded: String?) throws -> [JSONValue] {
        var documents: [JSONValue] = []
        for file in PackageFiles.jsonFiles(in: folder) where file != excluded && file.hasSuffix(".schema.json") {
            documents.append(try PackageFiles.readJSON(file))
        }
        return documents
    }
}

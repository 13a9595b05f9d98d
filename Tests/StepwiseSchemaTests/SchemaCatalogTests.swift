import StepwiseJSON
import StepwiseTesting
import Testing

/// The project rule: `Schemas/` holds a schema of every document the product reads or writes,
/// each one usable (it compiles with the in-house validator, which refuses unknown keywords),
/// named by its `$id`, reachable through `SchemaCatalog`, and listed in `Schemas/README.md`.
struct SchemaCatalogTests {
    static let files: [String] = PackageFiles.jsonFiles(in: SchemaCatalog.folder).filter { $0.hasSuffix(".schema.json") }

    /// Every path `SchemaCatalog` names, so a schema added without its constant is noticed.
    static let cataloguePaths: Set<String> = [
        SchemaCatalog.sequence, SchemaCatalog.conformanceCase, SchemaCatalog.manifest, SchemaCatalog.syncRequest,
        SchemaCatalog.syncResponse, SchemaCatalog.deviceRegistration, SchemaCatalog.telemetryRequest, SchemaCatalog.serverAPI,
        SchemaCatalog.conformanceReport, SchemaCatalog.validateReport, SchemaCatalog.verifyManifestReport,
        SchemaCatalog.instanceReport, SchemaCatalog.runReport, SchemaCatalog.instancesReport, SchemaCatalog.deadLettersReport,
        SchemaCatalog.sequencesReport, SchemaCatalog.syncReport,
    ]

    @Test func everySchemaFileHasACatalogueConstant() {
        #expect(Set(Self.files) == Self.cataloguePaths)
    }

    /// It compiles (every keyword known, every `$ref` resolved) and its `$id` ends with its name.
    @Test(arguments: files)
    func schemaCompilesAndIsNamedByItsID(path: String) throws {
        _ = try SchemaCatalog.validator(for: path)
        let schema = try PackageFiles.readJSON(path)
        let name = String(path.dropFirst(SchemaCatalog.folder.count + 1))
        #expect(schema["$id"] == .string("https://stepwise.example/schemas/" + name))
        #expect(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema")
        #expect(schema["description"]?.stringValue?.isEmpty == false)
    }

    @Test(arguments: files)
    func readmeListsTheSchema(path: String) throws {
        let readme = String(decoding: try PackageFiles.read(SchemaCatalog.folder + "/README.md"), as: UTF8.self)
        let name = String(path.dropFirst(SchemaCatalog.folder.count + 1))
        #expect(readme.contains("| `\(name)` |"), "Schemas/README.md has no row for \(name)")
    }

    /// A definition validator refuses a name the file does not define, rather than validating
    /// against nothing.
    @Test func unknownDefinitionIsRefused() {
        #expect(throws: FixtureError.self) { try SchemaCatalog.validator(for: SchemaCatalog.serverAPI, definition: "nope") }
    }
}

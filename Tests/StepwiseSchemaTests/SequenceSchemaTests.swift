import StepwiseJSON
import StepwiseTesting
import Testing

/// `Schemas/sequence.schema.json` against the sequence fixtures, and the fixtures' own consistency.
struct SequenceSchemaTests {
    @Test func fixtureFoldersAreFound() {
        #expect(SequenceFixtures.valid.count >= 10)
        #expect(SequenceFixtures.invalid.count >= 40)
    }

    @Test(arguments: SequenceFixtures.valid)
    func validFixtureMatchesTheSchema(path: String) throws {
        let validator = try SequenceFixtures.sequenceValidator.get()
        let document = try PackageFiles.readJSON(path)
        let violations = validator.validate(document)
        #expect(violations.isEmpty, "\(path):\n\(violations.map(\.description).joined(separator: "\n"))")
    }

    @Test(arguments: SequenceFixtures.invalid)
    func invalidFixtureIsRejectedWhenTheSchemaCanSeeIt(name: String) throws {
        let validator = try SequenceFixtures.sequenceValidator.get()
        let document = try PackageFiles.readJSON(SequenceFixtures.invalidPath(name))
        let violations = validator.validate(document)
        if SequenceFixtures.beyondSchema.contains(name) {
            #expect(violations.isEmpty, "\(name) is listed as beyond JSON Schema but the schema rejects it: \(violations)")
            return
        }
        #expect(!violations.isEmpty, "\(name): the schema accepts a document the spec rejects")
        // The schema fails where the spec says the problem is (or at an ancestor, e.g. `required`
        // reports at the object), and nowhere else.
        let expected = try SequenceFixtures.expectedProblems(name).compactMap { JSONPointer(parsing: $0.pointer) }
        for violation in violations {
            #expect(
                expected.contains { violation.instanceLocation.isPrefix(of: $0) },
                "\(name): schema violation \(violation) is not at or above any expected problem"
            )
        }
        let checkable = try SequenceFixtures.expectedProblems(name).filter {
            !SequenceFixtures.codesBeyondSchema.contains($0.code)
        }
        for problem in checkable {
            let pointer = try #require(JSONPointer(parsing: problem.pointer))
            #expect(
                violations.contains { $0.instanceLocation.isPrefix(of: pointer) },
                "\(name): no schema violation at or above \(problem)"
            )
        }
    }

    @Test func everyListedBeyondSchemaFixtureExists() {
        #expect(SequenceFixtures.beyondSchema.subtracting(SequenceFixtures.invalid).isEmpty)
    }

    @Test(arguments: SequenceFixtures.invalid)
    func sidecarIsWellFormed(name: String) throws {
        let problems = try SequenceFixtures.expectedProblems(name)
        #expect(!problems.isEmpty, "\(name): an invalid fixture needs at least one expected problem")
        #expect(Set(problems).count == problems.count, "\(name): duplicate entries")
        let document = try PackageFiles.readJSON(SequenceFixtures.invalidPath(name))
        for problem in problems {
            #expect(SequenceFixtures.knownCodes.contains(problem.code), "\(name): unknown code \(problem.code)")
            // A problem points at an existing value, or at a missing member of an existing object.
            let pointer = try #require(JSONPointer(parsing: problem.pointer), "\(name): bad pointer \(problem.pointer)")
            if pointer.resolve(in: document) == nil {
                let parent = JSONPointer(tokens: Array(pointer.tokens.dropLast()))
                #expect(
                    parent.resolve(in: document)?.objectValue != nil,
                    "\(name): \(problem.pointer) is neither a value nor a member of an object"
                )
            }
        }
    }

    @Test func everySidecarHasItsFixture() {
        let sidecars = PackageFiles.jsonFiles(in: SequenceFixtures.invalidFolder)
            .filter { $0.hasSuffix(".expected.json") }
            .map { String($0.dropFirst(SequenceFixtures.invalidFolder.count + 1).dropLast(".expected.json".count)) }
        #expect(Set(sidecars) == Set(SequenceFixtures.invalid))
    }

    @Test(arguments: SequenceFixtures.orch8Examples)
    func orch8ExampleIsByteIdenticalToTheSharedCopy(file: String) throws {
        let shared = PackageFiles.root() + "/../shared/fixtures/orch8-examples/" + file
        let ours = try PackageFiles.read("\(SequenceFixtures.validFolder)/\(file)")
        if let original = try? PackageFiles.read(shared) {
            #expect(ours == original, "\(file) differs from \(shared)")
        }
        #expect(!ours.isEmpty)
    }

    @Test func readmeDescribesEveryValidFixture() throws {
        let readme = String(decoding: try PackageFiles.read("\(SequenceFixtures.validFolder)/README.md"), as: UTF8.self)
        for path in SequenceFixtures.valid {
            let file = String(path.dropFirst(SequenceFixtures.validFolder.count + 1))
            #expect(readme.contains("`\(file)`"), "README.md does not list \(file)")
        }
    }
}

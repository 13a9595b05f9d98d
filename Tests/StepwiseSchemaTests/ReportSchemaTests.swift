import Foundation
import StepwiseJSON
@testable import StepwiseCommands
import StepwiseTesting
import Testing

/// `conformance-report`, `validate-report` and `verify-manifest-report`: the `--json` reports of
/// the commands that check files, produced by the commands themselves on inputs that reach every
/// shape of entry (passing, failing, skipped and unusable; valid, invalid, not JSON and missing;
/// verified and each rejection), so a change to what a command prints must change its schema too.
struct ReportSchemaTests {
    // MARK: conformance

    /// A pass, a failure, a case `--filter` skips, a file that is not JSON and a missing path.
    private static func conformanceReport() async throws -> (JSONValue, CommandOutput) {
        let folder = try DocumentSchemas.scratchFolder("conformance")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try DocumentSchemas.write(#"{"name": "alpha passes", "expr": "1 + 1", "expect": 2}"#, to: "pass.json", in: folder)
        _ = try DocumentSchemas.write(
            #"{"cases": [{"name": "alpha fails", "expr": "1 + 1", "expect": 3}, {"name": "beta is filtered out", "expr": "1", "expect": 1}]}"#,
            to: "fail.json", in: folder)
        _ = try DocumentSchemas.write("{not json", to: "broken.json", in: folder)
        let output = await ConformanceCommand.execute(paths: [folder, folder + "/missing.json"], json: true, filter: "alpha")
        return (try DocumentSchemas.parse(output.standardOutput), output)
    }

    /// A file of the public suite: sequence cases on the real engine, all passing.
    @Test func conformanceReportOfASuiteFileMatchesTheSchema() async throws {
        let output = await ConformanceCommand.execute(
            paths: [PackageFiles.path("Fixtures/conformance/sequences/runner_contract.json")], json: true, filter: nil)
        let report = try DocumentSchemas.parse(output.standardOutput)
        try DocumentSchemas.expectValid(report, SchemaCatalog.conformanceReport)
        #expect(output.exitCode == 0 && !(report["cases"]?.arrayValue?.isEmpty ?? true))
    }

    /// The report of a run with every kind of entry matches, and says what the exit status says.
    @Test func conformanceReportMatchesTheSchema() async throws {
        let (report, output) = try await Self.conformanceReport()
        try DocumentSchemas.expectValid(report, SchemaCatalog.conformanceReport)
        #expect(output.exitCode == 1)
        let statuses = Set(report["cases"]?.arrayValue?.compactMap { $0["status"]?.stringValue } ?? [])
        #expect(statuses == ["pass", "fail"], "the run should reach both case shapes")
        #expect((report["unusable"]?.arrayValue?.count ?? 0) >= 2)
        #expect(report["skipped"]?.exactIntegerValue ?? 0 >= 1)
    }

    /// Renamed totals, an unknown status, a failure without its reason and a passing case with
    /// one are refused.
    @Test func conformanceReportSchemaRefusesWrongShapes() async throws {
        let (report, _) = try await Self.conformanceReport()
        let path = SchemaCatalog.conformanceReport
        let cases = report["cases"]?.arrayValue ?? []
        let failing = try #require(cases.firstIndex { $0["status"] == "fail" })
        let passing = try #require(cases.firstIndex { $0["status"] == "pass" })
        try DocumentSchemas.expectRejected(report.renaming("/passed", to: "passes"), path, near: "")
        try DocumentSchemas.expectRejected(report.replacing("/failed", with: "1"), path, near: "/failed")
        try DocumentSchemas.expectRejected(report.replacing("/cases/\(passing)/status", with: "passed"), path, near: "/cases/\(passing)/status")
        try DocumentSchemas.expectRejected(report.replacing("/cases/\(failing)/failure", with: nil), path, near: "/cases/\(failing)")
        try DocumentSchemas.expectRejected(report.replacing("/cases/\(passing)/failure", with: "x"), path, near: "/cases/\(passing)")
        try DocumentSchemas.expectRejected(report.renaming("/unusable/0/error", to: "message"), path, near: "/unusable/0")
    }

    // MARK: validate

    /// A valid sequence with a warning, an invalid one, a file that is not JSON and a missing path.
    private static func validateReport() throws -> (JSONValue, CommandOutput) {
        let folder = try DocumentSchemas.scratchFolder("validate")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try DocumentSchemas.write(
            #"{"name": "ok", "version": 1, "colour": "blue", "blocks": [{"type": "step", "id": "a", "handler": "h"}]}"#,
            to: "valid.json", in: folder)
        _ = try DocumentSchemas.write(
            #"{"name": "bad", "version": -1, "blocks": [{"type": "step", "id": "", "handler": "h"}]}"#, to: "invalid.json", in: folder)
        _ = try DocumentSchemas.write("[1, 2", to: "not-json.json", in: folder)
        _ = try DocumentSchemas.write(
            #"[{"name": "b1", "version": 1, "blocks": [{"type": "step", "id": "a", "handler": "h"}]}, 7]"#,
            to: "bundle.json", in: folder)
        let output = ValidateCommand.execute(
            paths: [folder, PackageFiles.path("Fixtures/sequences/onboarding-flow.json"), folder + "/missing.json"], json: true)
        return (try DocumentSchemas.parse(output.standardOutput), output)
    }

    /// Every file shape of the report (valid with its summary, invalid, unusable twice) matches.
    @Test func validateReportMatchesTheSchema() throws {
        let (report, output) = try Self.validateReport()
        try DocumentSchemas.expectValid(report, SchemaCatalog.validateReport)
        #expect(output.exitCode == 2)
        let files = report["files"]?.arrayValue ?? []
        #expect(Set(files.compactMap { $0["status"]?.stringValue }) == ["valid", "invalid", "unusable"])
        #expect(files.contains { $0["error"] != nil } && files.contains { $0["status"] == "unusable" && $0["problems"] != nil })
        #expect(files.contains { !($0["warnings"]?.arrayValue?.isEmpty ?? true) }, "the run should reach a warning")
        let bundle = files.filter { $0["path"]?.stringValue?.hasSuffix("bundle.json") == true }
        #expect(bundle.map { $0["index"] } == [0, 1] && bundle.map { $0["status"] } == ["valid", "invalid"])
        #expect(bundle.last?["problems"]?[0]?["pointer"] == "/1")
    }

    /// Wrong codes, a valid file without its summary, an invalid one with no problem, and a
    /// retyped count are refused.
    @Test func validateReportSchemaRefusesWrongShapes() throws {
        let (report, _) = try Self.validateReport()
        let path = SchemaCatalog.validateReport
        let files = report["files"]?.arrayValue ?? []
        let valid = try #require(files.firstIndex { $0["status"] == "valid" && !($0["warnings"]?.arrayValue?.isEmpty ?? true) })
        let invalid = try #require(files.firstIndex { $0["status"] == "invalid" })
        let missing = try #require(files.firstIndex { $0["error"] != nil })
        try DocumentSchemas.expectRejected(report.replacing("/files/\(valid)/name", with: nil), path, near: "/files/\(valid)")
        try DocumentSchemas.expectRejected(report.replacing("/files/\(valid)/version", with: "1"), path, near: "/files/\(valid)")
        try DocumentSchemas.expectRejected(report.replacing("/files/\(valid)/warnings/0/code", with: "unknown_type"), path, near: "/files/\(valid)")
        try DocumentSchemas.expectRejected(report.replacing("/files/\(invalid)/problems", with: []), path, near: "/files/\(invalid)")
        try DocumentSchemas.expectRejected(report.replacing("/files/\(invalid)/problems/0/code", with: "bad_thing"), path, near: "/files/\(invalid)")
        try DocumentSchemas.expectRejected(report.renaming("/files/\(invalid)/problems/0/pointer", to: "path"), path, near: "/files/\(invalid)")
        try DocumentSchemas.expectRejected(report.replacing("/files/\(missing)/status", with: "missing"), path, near: "/files/\(missing)")
        try DocumentSchemas.expectRejected(report.replacing("/valid", with: 1.5), path, near: "/valid")
    }

    // MARK: verify-manifest

    /// The signing fixtures (SYNC.md §3.12): one verified manifest, entry failures, rejections.
    static let signingFolders = ["valid"] + (
        (try? FileManager.default.contentsOfDirectory(atPath: PackageFiles.path("Fixtures/signing/tampered"))) ?? []
    ).sorted().map { "tampered/" + $0 }

    /// The test root key of `Fixtures/signing/keys.json`, and the manifests' generation time.
    private static let fixtureRootKey = "Nz5XgYPm9wWMq6BzPJWhG3hbAqqz7xG2+HwWLMbcr0k="
    private static let fixtureNow: Int64 = 1_767_225_600_000

    private static func verifyReport(_ folder: String, now: Int64 = fixtureNow) async throws -> JSONValue {
        let output = await VerifyManifestCommand.execute(
            location: PackageFiles.path("Fixtures/signing/" + folder), rootKey: fixtureRootKey, json: true, now: now)
        #expect(output.exitCode == (folder == "valid" ? 0 : 1), "\(folder): \(output.standardError)")
        return try DocumentSchemas.parse(output.standardOutput)
    }

    @Test func signingFixturesAreFound() {
        #expect(Self.signingFolders.count >= 6)
    }

    /// Each signing fixture's report matches, verified and rejected alike.
    @Test(arguments: signingFolders)
    func verifyManifestReportMatchesTheSchema(folder: String) async throws {
        try DocumentSchemas.expectValid(try await Self.verifyReport(folder), SchemaCatalog.verifyManifestReport, folder)
    }

    /// An entry failure found by the command itself (a sequence file removed from a copy of the
    /// valid folder) matches too: `download_failed` with its message.
    @Test func verifyManifestReportOfAMissingSequenceMatchesTheSchema() async throws {
        let folder = try DocumentSchemas.scratchFolder("verify")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.copyItem(atPath: PackageFiles.path("Fixtures/signing/valid"), toPath: folder)
        for file in try FileManager.default.contentsOfDirectory(atPath: folder + "/sequences") where file.hasSuffix(".json") {
            try FileManager.default.removeItem(atPath: folder + "/sequences/" + file)
        }
        let output = await VerifyManifestCommand.execute(location: folder, rootKey: Self.fixtureRootKey, json: true, now: Self.fixtureNow)
        let report = try DocumentSchemas.parse(output.standardOutput)
        #expect(report["entries"]?[0]?["outcome"] == "download_failed")
        try DocumentSchemas.expectValid(report, SchemaCatalog.verifyManifestReport)
    }

    /// A verified report with an error, a rejected one with entries or a version, an unknown
    /// outcome, a string version and an extra member are refused.
    @Test func verifyManifestReportSchemaRefusesWrongShapes() async throws {
        let path = SchemaCatalog.verifyManifestReport
        let verified = try await Self.verifyReport("valid")
        let rejected = try await Self.verifyReport("tampered/manifest-body-altered")
        #expect(verified["status"] == "verified" && rejected["status"] == "rejected")
        try DocumentSchemas.expectRejected(verified.replacing("/error", with: "manifest_expired"), path, near: "/error")
        try DocumentSchemas.expectRejected(verified.replacing("/entries/0/outcome", with: "installed"), path, near: "/entries/0/outcome")
        try DocumentSchemas.expectRejected(verified.replacing("/entries/0/version", with: "1"), path, near: "/entries/0/version")
        try DocumentSchemas.expectRejected(verified.renaming("/manifest_version", to: "version"), path, near: "")
        try DocumentSchemas.expectRejected(rejected.replacing("/error", with: nil), path, near: "")
        try DocumentSchemas.expectRejected(rejected.replacing("/error", with: "signature_invalid"), path, near: "/error")
        try DocumentSchemas.expectRejected(rejected.replacing("/entries", with: verified["entries"]), path, near: "/entries")
        try DocumentSchemas.expectRejected(rejected.replacing("/manifest_version", with: 1), path, near: "/manifest_version")
    }
}

import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdTesting
import Stepwise
@testable import StepwiseCommands
import StepwiseServer
import StepwiseTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `sync-report`: what `stepwise sync --json` prints, produced by the command against the
/// reference server that `stepwise serve` builds (in-process, on a loopback port), and against
/// a port where nothing listens.
@Suite(.serialized)
struct SyncReportSchemaTests {
    static let apiKey = "schema-test-key-0001"

    static let approval = """
        {"name": "approval", "version": 1, "blocks": [
          {"type": "step", "id": "decide", "handler": "noop",
           "wait_for_input": {"prompt": "Ship it?", "choices": [{"label": "Yes", "value": "yes"}, {"label": "No", "value": "no"}]}}
        ]}
        """

    private static func sync(_ url: String, db: String) async throws -> (JSONValue, CommandOutput) {
        let command = try SyncCommand.parse([
            "--sync-url", url, "--api-key", apiKey, "--device-id", "schema-laptop", "--allow-insecure-localhost",
            "--timeout-ms", "20000", "--json", "--db", db,
        ])
        let output = await command.execute()
        return (try DocumentSchemas.parse(output.standardOutput), output)
    }

    /// One GET or POST to the server's operator API with the tenant key.
    private static func request(_ method: String, _ url: String, json: JSONValue? = nil) async throws -> JSONValue {
        var request = URLRequest(url: try #require(URL(string: url)), timeoutInterval: 30)
        request.httpMethod = method
        request.setValue(apiKey, forHTTPHeaderField: "x-api-key")
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "content-type")
            request.httpBody = Data(JSONWriter.bytes(json))
        }
        let (data, _) = try await URLSession.shared.data(for: request)
        return data.isEmpty ? .null : try JSONParser.parse(Array(data))
    }

    /// A first sync that delivers the outbox, a second that executes the command resolving the
    /// wait, both against the reference server; each report matches. The renamed, retyped and
    /// out-of-range variants of a real report are refused.
    @Test func syncReportsAgainstTheReferenceServerMatchTheSchema() async throws {
        let folder = try DocumentSchemas.scratchFolder("sync")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/device.db"
        let file = try DocumentSchemas.write(Self.approval, to: "approval.json", in: folder)
        let run = try RunCommand.parse([file, "--db", db])
        let stopped = await run.execute(console: .collecting(), input: .scripted([]), canAsk: false)
        #expect(stopped.exitCode == 3, "\(stopped.standardOutput)\(stopped.standardError)")

        let prepared = try await ServeCommand.parse(["--db", folder + "/server.db", "--api-key", Self.apiKey]).prepare()
        let app = prepared.server.makeApplication(host: "127.0.0.1", port: 0)
        try await app.test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let (first, firstOutput) = try await Self.sync(base + "/mobile/sync", db: db)
            #expect(firstOutput.exitCode == 0, "\(firstOutput.standardOutput)")
            try DocumentSchemas.expectValid(first, SchemaCatalog.syncReport, "first sync")
            #expect(first["rows_delivered"] == 2 && first["http_status"] == 200)

            let approvals = try await Self.request("GET", base + "/mobile/approvals")
            let approvalID = try #require(approvals["items"]?[0]?["id"]?.stringValue)
            _ = try await Self.request("POST", base + "/mobile/approvals/\(approvalID)/resolve", json: ["output": ["value": "yes"]])
            let (second, secondOutput) = try await Self.sync(base + "/mobile/sync", db: db)
            #expect(secondOutput.exitCode == 0, "\(secondOutput.standardOutput)")
            try DocumentSchemas.expectValid(second, SchemaCatalog.syncReport, "second sync")
            #expect(second["commands_executed"] == 1)

            let path = SchemaCatalog.syncReport
            try DocumentSchemas.expectRejected(second.renaming("/commands_executed", to: "executed"), path, near: "")
            try DocumentSchemas.expectRejected(second.replacing("/http_status", with: "200"), path, near: "/http_status")
            try DocumentSchemas.expectRejected(second.replacing("/http_status", with: 42), path, near: "/http_status")
            try DocumentSchemas.expectRejected(second.replacing("/requests", with: -1), path, near: "/requests")
            try DocumentSchemas.expectRejected(second.replacing("/warnings", with: "none"), path, near: "/warnings")
            try DocumentSchemas.expectRejected(second.replacing("/device_id", with: ""), path, near: "/device_id")
        }
    }

    /// A round trip that fails (nothing listens on the port) still prints a report: the error,
    /// no HTTP status, exit status 1.
    @Test func failedSyncReportMatchesTheSchema() async throws {
        let folder = try DocumentSchemas.scratchFolder("sync-offline")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (report, output) = try await Self.sync("http://127.0.0.1:1/mobile/sync", db: folder + "/device.db")
        #expect(output.exitCode == 1)
        try DocumentSchemas.expectValid(report, SchemaCatalog.syncReport, "failed sync")
        #expect(report["error"]?.stringValue != nil && report["http_status"] == .null)
        try DocumentSchemas.expectRejected(report.replacing("/error", with: ""), SchemaCatalog.syncReport, near: "/error")
    }
}

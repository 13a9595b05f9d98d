import HummingbirdTesting
import HTTPTypes
import Foundation
import Testing
import StepwiseJSON
import StepwiseServer
import StepwiseSQLite

@Suite("SQLiteSyncServerStore")
struct StoreTests {
    /// Another application's SQLite file (tables, no schema version), a directory or a device is
    /// refused before anything of it changes.
    @Test("another application's database is refused untouched")
    func foreignFilesAreRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-foreign-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("places.sqlite").path
        do {
            let other = try SQLiteConnection(path: path)
            try other.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: SyncServerError.self) { try SQLiteSyncServerStore(path: path) }
        #expect(error?.message.contains("another application") == true, "\(error?.message ?? "")")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let folder = #expect(throws: SyncServerError.self) { try SQLiteSyncServerStore(path: directory.path) }
        #expect(folder?.message.contains("not a regular file") == true)
    }

    @Test("the database survives a reopen, and migrating again changes nothing")
    func reopen() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("server.db").path
        do {
            let store = try SQLiteSyncServerStore(path: path)
            try await store.addAPIKey("k", grant: .tenant(.defaultTenant), now: 1)
            try await store.setSetting("generated_api_key", value: "k")
            _ = try await store.registerDevice(
                DeviceRegistration(deviceID: "d1", platform: "ios"), tenant: .defaultTenant, maxDevices: 10, now: 2)
        }
        let reopened = try SQLiteSyncServerStore(path: path)
        #expect(try await reopened.grant(forAPIKey: "k") == .tenant(.defaultTenant))
        #expect(try await reopened.setting("generated_api_key") == "k")
        #expect(try await reopened.setting("missing") == nil)
        #expect(try await reopened.device("d1", tenant: .defaultTenant)?.platform == "ios")
        #expect(try await reopened.device("d1", tenant: TenantID(rawValue: "x")!) == nil)
        #expect(try await reopened.tenantExists(.defaultTenant))
        #expect(try await !reopened.tenantExists(TenantID(rawValue: "x")!))
    }

    @Test("a file that is not a database is refused with a storage error")
    func notADatabase() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-notdb-\(UUID().uuidString)").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: SyncServerError.self) { try SQLiteSyncServerStore(path: path) }
        #expect(error?.code == .storage)
    }

    @Test("a sync batch for another tenant's device writes nothing")
    func batchIsAtomic() async throws {
        let store = try SQLiteSyncServerStore(path: ":memory:")
        try await store.addAPIKey("a", grant: .tenant(.defaultTenant), now: 0)
        try await store.addAPIKey("b", grant: .tenant(TenantID(rawValue: "b")!), now: 0)
        _ = try await store.registerDevice(DeviceRegistration(deviceID: "d1", platform: "ios"), tenant: .defaultTenant, maxDevices: 5, now: 0)
        var batch = SyncBatch(tenant: TenantID(rawValue: "b")!, deviceID: "d1")
        batch.statuses = [
            InstanceStatusRecord(
                deviceID: "d1", tenant: TenantID(rawValue: "b")!, instanceID: "i", sequenceName: "s", sequenceVersion: nil,
                state: "Running", currentStep: nil, handler: nil, steps: [], error: nil, parentInstanceID: nil,
                reportedAt: 0, updatedAt: 0)
        ]
        await #expect(throws: SyncServerError.self) { try await store.applySync(batch, now: 0) }
        #expect(try await store.statuses(tenant: TenantID(rawValue: "b")!, deviceID: nil, limit: 10).total == 0)
        #expect(try await store.statuses(tenant: .defaultTenant, deviceID: nil, limit: 10).total == 0)
    }
}

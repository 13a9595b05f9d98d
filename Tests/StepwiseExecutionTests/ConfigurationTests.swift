import Stepwise
import Testing

@Suite("Configuration checks and device context")
struct ConfigurationTests {
    @Test func malformedRootKeysFailInit() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        var configuration = EngineConfiguration.forTests
        configuration.rootPublicKey = "not a key"
        let error = #expect(throws: StepwiseError.self) { try StepwiseEngine(databasePath: db.path, configuration: configuration) }
        #expect(error?.code == .invalidInput && error?.message.hasPrefix("rootPublicKey is malformed") == true)
        configuration.rootPublicKey = String(repeating: "ab", count: 32)
        configuration.additionalRootPublicKeys = ["AAAA"]
        let second = #expect(throws: StepwiseError.self) { try StepwiseEngine(databasePath: db.path, configuration: configuration) }
        #expect(second?.message.hasPrefix("additionalRootPublicKeys[0] is malformed") == true)
        var insecure = EngineConfiguration()
        insecure.syncUrl = "http://example.com/mobile/sync"
        #expect(throws: StepwiseError.self) { try StepwiseEngine(databasePath: db.path, configuration: insecure) }
    }

    /// URL schemes are case-insensitive (RFC 3986): `HTTPS://` is https.
    @Test func anUppercaseHTTPSSchemeIsHTTPS() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        var configuration = EngineConfiguration.forTests
        configuration.syncUrl = "HTTPS://sync.example.com/mobile/sync"
        let engine = try StepwiseEngine(databasePath: db.path, configuration: configuration)
        await engine.shutdown()
    }

    @Test func deviceContextPersists() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        var engine = try StepwiseEngine(databasePath: db.path)
        try await engine.setDeviceContext(DeviceContext(deviceId: "d1", osName: "iOS", osVersion: "18.1", appVersion: "2.0"))
        await engine.shutdown()
        engine = try StepwiseEngine(databasePath: db.path)
        let context = try await engine.deviceContext()
        #expect(context == DeviceContext(deviceId: "d1", osName: "iOS", osVersion: "18.1", appVersion: "2.0"))
        await engine.shutdown()
    }
}

import HummingbirdTesting
import HTTPTypes
import Testing
import StepwiseJSON
import Synchronization
@testable import StepwiseServer

@Suite("Helpers")
struct UnitTests {
    @Test("RFC 3339 parsing and formatting")
    func serverTime() {
        #expect(ServerTime.parse("1970-01-01T00:00:00Z") == 0)
        #expect(ServerTime.parse("2026-05-19T10:30:00.004Z") == 1_779_186_600_004)
        #expect(ServerTime.parse("2026-05-19T12:30:00.004+02:00") == 1_779_186_600_004)
        #expect(ServerTime.parse("2026-05-19t10:30:00.0041234z") == 1_779_186_600_004)
        #expect(ServerTime.parse("2026-05-19T10:30:00.5Z") == 1_779_186_600_500)
        #expect(ServerTime.parse("1969-12-31T23:59:59.999Z") == -1)
        #expect(ServerTime.format(1_779_186_600_004) == "2026-05-19T10:30:00.004Z")
        #expect(ServerTime.format(-1) == "1969-12-31T23:59:59.999Z")
        #expect(ServerTime.format(951_782_400_000) == "2000-02-29T00:00:00.000Z")
        for bad in ["", "2026-05-19", "2026-05-19T10:30:00", "2026-02-30T00:00:00Z", "2026-05-19T24:00:00Z",
                    "2026-05-19T10:30:00.Z", "2026-05-19T10:30:00Zjunk", "2026-05-19T10:30:00+0200"] {
            #expect(ServerTime.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("sealed secrets open with the same key only, and tampering is detected")
    func sealer() throws {
        let sealer = SecretSealer.random()
        let plain = Array("sk-123".utf8)
        var box = sealer.seal(plain)
        #expect(box.count == plain.count + 24 + 16)
        #expect(sealer.open(box) == plain)
        #expect(SecretSealer.random().open(box) == nil)
        box[box.count - 1] ^= 1
        #expect(sealer.open(box) == nil)
        #expect(sealer.open([1, 2, 3]) == nil)
        #expect(throws: SyncServerError.self) { try SecretSealer(key: [1, 2]) }
    }

    @Test("credential references")
    func credentials() throws {
        let store = try CredentialStore(json: JSONParser.parse(#"{"default": {"w": {"k": "v"}, "s": "plain"}}"#))
        #expect(try store.resolve(reference: "credentials://w/k", tenant: .defaultTenant).get() == "v")
        #expect(try store.resolve(reference: "credentials://s", tenant: .defaultTenant).get() == "plain")
        #expect(try store.resolve(reference: "credentials://w", tenant: .defaultTenant).get() == ["k": "v"])
        for bad in ["credentials://", "credentials://w/", "credentials://x", "credentials://s/field", "http://w"] {
            #expect(throws: SyncServerError.self, "\(bad)") { try store.resolve(reference: bad, tenant: .defaultTenant).get() }
        }
        #expect(throws: SyncServerError.self) { try store.resolve(reference: "credentials://s", tenant: TenantID(rawValue: "b")!).get() }
        // Only strings that start with the scheme are references.
        #expect(try store.resolve(["a": "see credentials://s", "b": [1, "credentials://s"]], tenant: .defaultTenant).get()
            == ["a": "see credentials://s", "b": [1, "plain"]])
        #expect(throws: SyncServerError.self) { try CredentialStore(json: ["default": "x"]) }
        #expect(throws: SyncServerError.self) { try CredentialStore(json: ["bad tenant": [:]]) }
        #expect(throws: SyncServerError.self) { try CredentialStore(json: ["default": ["a/b": "x"]]) }
    }

    @Test("HTML escaping and form decoding")
    func html() {
        #expect(HTML.escape("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(HTML.percentEncode("a b/é") == "a%20b%2F%C3%A9")
        #expect(HTML.percentDecode("a%20b%2F%C3%A9%zz") == "a b/é%zz")
        #expect(HTML.formFields(Array("value=a+b%26c&csrf=&x".utf8)) == ["value": "a b&c", "csrf": "", "x": ""])
    }

    @Test("tenant ids and generated identifiers")
    func identifiers() {
        #expect(TenantID(rawValue: "acme-1.eu_west") != nil)
        #expect(TenantID(rawValue: "") == nil)
        #expect(TenantID(rawValue: "a b") == nil)
        #expect(TenantID(rawValue: String(repeating: "a", count: 65)) == nil)
        let id = ServerIdentifier.make()
        #expect(id.count == 36)
        #expect(Array(id)[14] == "4")
        #expect(ServerIdentifier.make() != id)
        #expect(ServerIdentifier.makeAPIKey().hasPrefix("sk_"))
    }

    @Test("the logging push sender describes the request without the full token")
    func loggingPush() {
        let lines = LinesBox()
        let push = SilentPush(tenant: .defaultTenant, deviceID: "d1", platform: "ios", token: "0123456789abcdef", commandID: "c1")
        LoggingPushSender(provider: .apns) { lines.append($0) }.send(push)
        LoggingPushSender(provider: .fcm) { lines.append($0) }.send(push)
        let logged = lines.lines
        #expect(logged.count == 2)
        #expect(logged[0].contains("{\"aps\":{\"content-available\":1}}"))
        #expect(logged[1].contains("\"data\":{\"stepwise\":\"sync\"}"))
        #expect(logged.allSatisfy { !$0.contains("0123456789") && $0.contains("…abcdef") })
    }
}

final class LinesBox: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

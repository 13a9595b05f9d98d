import StepwiseExecution
import StepwiseCrypto
public import StepwiseJSON

/// Everything manifest sync persists between syncs (SYNC.md §3.6 acceptance, §3.8 retries).
///
/// Written in one transaction at acceptance (keys, version, body, ETag, every entry pending) and
/// again after the entries are processed. The engine stores it as opaque JSON text
/// (``encoded()`` / ``init(encoded:)``).
///
/// ```swift
/// var state = try await installer.loadManifestSyncState() ?? ManifestSyncState()
/// state.lastAppliedVersion   // replay protection (M7)
/// state.pendingEntries       // retried on the next sync
/// ```
public struct ManifestSyncState: Sendable, Hashable {
    /// The last known outcome of one entry of the accepted manifest.
    public struct Entry: Sendable, Hashable {
        /// Position in the manifest's `sequences`.
        public var index: Int
        /// The entry's name (best effort for an invalid entry).
        public var name: String
        /// The entry's version, when it is an integer.
        public var version: Int?
        /// The last outcome (`pending` until processed).
        public var outcome: EntryOutcome
        /// The last failure message.
        public var message: String?

        /// Creates an entry record.
        public init(index: Int, name: String, version: Int?, outcome: EntryOutcome, message: String? = nil) {
            self.index = index
            self.name = name
            self.version = version
            self.outcome = outcome
            self.message = message
        }

        /// Whether it runs again on the next sync.
        public var retryPending: Bool { outcome.isRetryable }
    }

    /// `manifest_version` of the last accepted manifest (`nil`: none yet).
    public var lastAppliedVersion: Int64?
    /// The URL the accepted manifest was fetched from (relative entry URLs resolve against it;
    /// its ETag applies to it only).
    public var manifestURL: String?
    /// The ETag of the accepted manifest's response, if it had one.
    public var etag: String?
    /// The accepted manifest's root signature, base64 (kept with the body for audits).
    public var manifestSignature: String?
    /// The accepted manifest's body bytes.
    public var manifestBody: [UInt8]?
    /// The trusted signing keys (every key absent from the accepted manifest is revoked).
    public var trustedKeys: [VerifiedManifest.TrustedKey]
    /// One record per entry of the accepted manifest.
    public var entries: [Entry]

    /// The state before any accepted manifest.
    public init() {
        trustedKeys = []
        entries = []
    }

    /// Entries whose last outcome is retryable (SYNC.md §3.8).
    public var pendingEntries: [Entry] { entries.filter(\.retryPending) }

    /// The state as JSON.
    public var jsonValue: JSONValue {
        var object: JSONObject = [
            "trusted_signing_keys": .array(
                trustedKeys.map { ["key_id": .string($0.keyID), "public_key": .string($0.publicKey.base64)] }),
            "entries": .array(
                entries.map { e in
                    var o: JSONObject = [
                        "index": .integer(Int64(e.index)), "name": .string(e.name), "outcome": .string(e.outcome.rawValue),
                    ]
                    o["version"] = e.version.map { .integer(Int64($0)) } ?? .null
                    if let message = e.message { o["message"] = .string(message) }
                    return .object(o)
                }),
        ]
        object["last_applied_version"] = lastAppliedVersion.map { .integer($0) } ?? .null
        object["manifest_url"] = manifestURL.map { .string($0) } ?? .null
        object["etag"] = etag.map { .string($0) } ?? .null
        object["manifest_signature"] = manifestSignature.map { .string($0) } ?? .null
        object["manifest_body"] = manifestBody.map { .string(String(decoding: $0, as: UTF8.self)) } ?? .null
        return .object(object)
    }

    /// The state from its JSON.
    ///
    /// - Throws: ``SyncError`` `storage` when the JSON is not a state this type wrote. Nothing else.
    public init(json: JSONValue) throws(SyncError) {
        func corrupt(_ what: String) -> SyncError { SyncError(.storage, "stored manifest sync state is corrupt: \(what)") }
        guard case .object(let o) = json else { throw corrupt("not an object") }
        self.init()
        func optionalString(_ key: String) throws(SyncError) -> String? {
            switch o[key] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            default: throw corrupt(key)
            }
        }
        switch o["last_applied_version"] {
        case nil, .null?: lastAppliedVersion = nil
        case .integer(let v)?: lastAppliedVersion = v
        default: throw corrupt("last_applied_version")
        }
        manifestURL = try optionalString("manifest_url")
        etag = try optionalString("etag")
        manifestSignature = try optionalString("manifest_signature")
        manifestBody = try optionalString("manifest_body").map { Array($0.utf8) }
        guard case .array(let keys)? = o["trusted_signing_keys"] else { throw corrupt("trusted_signing_keys") }
        for key in keys {
            guard case .string(let id)? = key["key_id"], case .string(let text)? = key["public_key"],
                let raw = Base64.decode(text), let publicKey = try? Ed25519PublicKey(rawRepresentation: raw)
            else { throw corrupt("trusted_signing_keys") }
            trustedKeys.append(.init(keyID: id, publicKey: publicKey))
        }
        guard case .array(let list)? = o["entries"] else { throw corrupt("entries") }
        for item in list {
            guard case .integer(let index)? = item["index"], case .string(let name)? = item["name"],
                case .string(let outcome)? = item["outcome"]
            else { throw corrupt("entries") }
            let version = item["version"]?.exactIntegerValue.flatMap { Int(exactly: $0) }
            entries.append(
                Entry(
                    index: Int(index), name: name, version: version, outcome: EntryOutcome(rawValue: outcome),
                    message: item["message"]?.stringValue))
        }
    }

    /// Compact JSON bytes of the state, for an opaque metadata column.
    public func encoded() -> [UInt8] { JSONWriter.bytes(jsonValue, options: .sortedKeys) }

    /// Decodes ``encoded()`` bytes.
    ///
    /// - Throws: ``SyncError`` `storage` for bytes this type did not write. Nothing else.
    public init(encoded bytes: [UInt8]) throws(SyncError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw SyncError(.storage, "stored manifest sync state is corrupt: \(error.description)")
        }
        try self.init(json: value)
    }
}

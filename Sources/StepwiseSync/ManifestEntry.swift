public import StepwiseJSON

/// One element of a manifest's `sequences` (SYNC.md §3.3), type-checked (E1).
///
/// ```swift
/// let entry = try ManifestEntry(manifest.sequences[0])
/// entry.url   // "sequences/5d2d….json"
/// ```
public struct ManifestEntry: Sendable, Hashable {
    /// `name`: non-blank.
    public let name: String
    /// `version`: an integer ≥ 0.
    public let version: Int
    /// `url`: absolute, or relative to the manifest URL.
    public let url: String
    /// `signing_key_id`: the key that signed the sequence.
    public let signingKeyID: String
    /// `sha256`: 64 lowercase hex digits of SHA-256 over the sequence bytes.
    public let sha256: String
    /// `required_handlers` (absent or `null` = `[]`).
    public let requiredHandlers: [String]
    /// `min_sdk_version`, or `nil` when absent, `null` or `""` (no constraint).
    public let minSDKVersion: String?

    /// Creates an entry from checked values.
    public init(
        name: String, version: Int, url: String, signingKeyID: String, sha256: String, requiredHandlers: [String] = [],
        minSDKVersion: String? = nil
    ) {
        self.name = name
        self.version = version
        self.url = url
        self.signingKeyID = signingKeyID
        self.sha256 = sha256
        self.requiredHandlers = requiredHandlers
        self.minSDKVersion = minSDKVersion
    }

    /// Type-checks a raw entry (E1).
    ///
    /// - Throws: ``EntryFailure`` with outcome `invalid_entry`, naming the member. Nothing else.
    public init(_ value: JSONValue) throws(EntryFailure) {
        func invalid(_ message: String) -> EntryFailure { EntryFailure(.invalidEntry, message) }
        guard case .object(let o) = value else { throw invalid("entry must be an object, got \(value.typeName)") }
        guard case .string(let name)? = o["name"], name.contains(where: { !$0.isWhitespace }) else {
            throw invalid("entry 'name' must be a non-blank string")
        }
        // Any integer ≥ 0 (§3.3); one no sequence can have (over 2³¹−1) fails E12 as invalid_sequence.
        guard case .integer(let version)? = o["version"], version >= 0 else {
            throw invalid("entry 'version' must be an integer ≥ 0")
        }
        guard case .string(let url)? = o["url"], !url.isEmpty else {
            throw invalid("entry 'url' must be a non-empty string")
        }
        guard case .string(let keyID)? = o["signing_key_id"] else {
            throw invalid("entry 'signing_key_id' must be a string")
        }
        guard case .string(let sha)? = o["sha256"], sha.utf8.count == 64,
            sha.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { throw invalid("entry 'sha256' must be 64 lowercase hex digits") }
        var handlers: [String] = []
        switch o["required_handlers"] {
        case nil, .null?: break
        case .array(let list)?:
            for item in list {
                guard case .string(let h) = item else { throw invalid("entry 'required_handlers' must be an array of strings") }
                handlers.append(h)
            }
        default: throw invalid("entry 'required_handlers' must be an array of strings")
        }
        var minSDK: String?
        switch o["min_sdk_version"] {
        case nil, .null?: break
        case .string(let text)?: minSDK = text.isEmpty ? nil : text
        default: throw invalid("entry 'min_sdk_version' must be a string")
        }
        self.init(
            name: name, version: Int(version), url: url, signingKeyID: keyID, sha256: sha, requiredHandlers: handlers,
            minSDKVersion: minSDK)
    }

    /// Best-effort name and version of a raw entry, for reporting one that fails E1.
    public static func identity(of value: JSONValue) -> (name: String, version: Int?) {
        let name = value["name"]?.stringValue ?? ""
        let version = value["version"]?.exactIntegerValue.flatMap { Int(exactly: $0) }
        return (name, version)
    }
}

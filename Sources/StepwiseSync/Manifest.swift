public import StepwiseJSON

/// The body of a signed manifest (SYNC.md §3.3), as checked at M5.
///
/// Only the manifest-level shape is checked here: `sequences` need only be an array (each entry
/// is checked on its own at E1, see ``ManifestEntry``) and a `public_key` need only be a string
/// (its decoding is M8). Unknown members are ignored.
///
/// ```swift
/// let manifest = try Manifest(body: bodyBytes)
/// manifest.manifestVersion   // 1767225600000
/// ```
public struct Manifest: Sendable, Hashable {
    /// A key listed under `signing_keys`.
    public struct SigningKey: Sendable, Hashable {
        /// `key_id`: non-empty, unique within the manifest.
        public let keyID: String
        /// `public_key` exactly as written (base64 of 32 raw bytes when valid).
        public let publicKey: String

        /// Creates a listed key.
        public init(keyID: String, publicKey: String) {
            self.keyID = keyID
            self.publicKey = publicKey
        }
    }

    /// An element of `removed`.
    public struct Removal: Sendable, Hashable {
        /// The retired sequence name.
        public let name: String
        /// `removed_at` in Unix milliseconds.
        public let removedAt: Int64
        /// `removed_at` exactly as written.
        public let removedAtText: String

        /// Creates a removal.
        public init(name: String, removedAt: Int64, removedAtText: String) {
            self.name = name
            self.removedAt = removedAt
            self.removedAtText = removedAtText
        }
    }

    /// Deepest JSON nesting accepted in a body (M5).
    public static let maxNestingDepth = 64

    /// `signing_keys`, in order.
    public let signingKeys: [SigningKey]
    /// `sequences`: the raw entries, checked one by one at E1.
    public let sequences: [JSONValue]
    /// `removed`.
    public let removed: [Removal]
    /// `manifest_version`: strictly increasing.
    public let manifestVersion: Int64
    /// `generated_at` in Unix milliseconds (informative).
    public let generatedAt: Int64
    /// `expires_at` in Unix milliseconds, when present.
    public let expiresAt: Int64?

    /// Parses and type-checks a manifest body (M5).
    ///
    /// - Parameter body: the signed body bytes (strict JSON, nesting ≤ 64, no duplicate names).
    /// - Throws: ``SyncError`` `manifestRejected` with reason `manifest_malformed`, naming the
    ///   offending member. Nothing else.
    public init(body: [UInt8]) throws(SyncError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(body, limits: .init(maxDepth: Self.maxNestingDepth))
        } catch {
            throw Self.malformed("manifest body is not valid JSON: \(error.description)")
        }
        try self.init(value)
    }

    /// Type-checks an already parsed body (M5).
    ///
    /// - Throws: ``SyncError`` `manifestRejected(manifest_malformed)`. Nothing else.
    public init(_ value: JSONValue) throws(SyncError) {
        guard case .object(let object) = value else {
            throw Self.malformed("manifest body must be a JSON object, got \(value.typeName)")
        }
        guard case .array(let keys)? = object["signing_keys"] else {
            throw Self.malformed(Self.typeMessage("signing_keys", "an array", object["signing_keys"]))
        }
        var signingKeys: [SigningKey] = []
        // Key ids are told apart by their bytes, as JSON strings are (not Swift's `==`).
        var seen: Set<[UInt8]> = []
        for (i, key) in keys.enumerated() {
            guard case .object(let k) = key else {
                throw Self.malformed(Self.typeMessage("signing_keys[\(i)]", "an object", key))
            }
            guard case .string(let id)? = k["key_id"], !id.isEmpty else {
                throw Self.malformed(Self.typeMessage("signing_keys[\(i)].key_id", "a non-empty string", k["key_id"]))
            }
            guard case .string(let publicKey)? = k["public_key"] else {
                throw Self.malformed(Self.typeMessage("signing_keys[\(i)].public_key", "a string", k["public_key"]))
            }
            guard seen.insert(Array(id.utf8)).inserted else { throw Self.malformed("signing key id '\(id)' is listed twice") }
            signingKeys.append(SigningKey(keyID: id, publicKey: publicKey))
        }
        guard case .array(let sequences)? = object["sequences"] else {
            throw Self.malformed(Self.typeMessage("sequences", "an array", object["sequences"]))
        }
        guard case .array(let removedList)? = object["removed"] else {
            throw Self.malformed(Self.typeMessage("removed", "an array", object["removed"]))
        }
        var removed: [Removal] = []
        for (i, item) in removedList.enumerated() {
            guard case .object(let r) = item else {
                throw Self.malformed(Self.typeMessage("removed[\(i)]", "an object", item))
            }
            guard case .string(let name)? = r["name"] else {
                throw Self.malformed(Self.typeMessage("removed[\(i)].name", "a string", r["name"]))
            }
            guard case .string(let at)? = r["removed_at"], let ms = RFC3339.milliseconds(from: at) else {
                throw Self.malformed(Self.typeMessage("removed[\(i)].removed_at", "an RFC 3339 date-time", r["removed_at"]))
            }
            removed.append(Removal(name: name, removedAt: ms, removedAtText: at))
        }
        guard case .integer(let version)? = object["manifest_version"] else {
            throw Self.malformed(Self.typeMessage("manifest_version", "an integer", object["manifest_version"]))
        }
        guard case .string(let generated)? = object["generated_at"], let generatedAt = RFC3339.milliseconds(from: generated)
        else {
            throw Self.malformed(Self.typeMessage("generated_at", "an RFC 3339 date-time", object["generated_at"]))
        }
        var expiresAt: Int64?
        switch object["expires_at"] {
        case nil, .null?: expiresAt = nil
        case .string(let text)?:
            guard let ms = RFC3339.milliseconds(from: text) else {
                throw Self.malformed(Self.typeMessage("expires_at", "an RFC 3339 date-time", .string(text)))
            }
            expiresAt = ms
        case let other?:
            throw Self.malformed(Self.typeMessage("expires_at", "an RFC 3339 date-time", other))
        }
        self.signingKeys = signingKeys
        self.sequences = sequences
        self.removed = removed
        self.manifestVersion = version
        self.generatedAt = generatedAt
        self.expiresAt = expiresAt
    }

    private static func malformed(_ message: String) -> SyncError {
        .manifestRejected(.manifestMalformed, message)
    }

    private static func typeMessage(_ member: String, _ expected: String, _ value: JSONValue?) -> String {
        guard let value else { return "manifest member '\(member)' is missing; expected \(expected)" }
        if case .string = value { return "manifest member '\(member)' must be \(expected)" }
        return "manifest member '\(member)' must be \(expected), got \(value.typeName)"
    }
}

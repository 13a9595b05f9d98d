public import StepwiseCrypto
import Foundation
import StepwiseExecution
import StepwiseJSON
import StepwiseSequences

/// The publisher side of signed manifests (SYNC.md §3.11 `publish` steps 1–7), as a pure function.
///
/// Computes every file of a published directory; writing them (artifacts first, the manifest
/// last and atomically) is the caller's job (`stepwise publish`).
///
/// ```swift
/// let output = try ManifestPublisher.publish(
///     sequences: [.init(label: "flow.json", bytes: bytes)], previousManifest: nil,
///     options: .init(rootKey: root, rootKeyID: "root-1", now: clock.now()))
/// for artifact in output.artifacts { write(artifact.bytes, to: dir + "/" + artifact.path) }
/// write(output.manifestFile, to: dir + "/manifest.json")
/// ```
public enum ManifestPublisher {
    /// Removals are kept this long (30 days), in milliseconds.
    public static let removalRetentionMilliseconds: Int64 = 30 * 86_400_000

    /// One sequence document to publish.
    public struct Input: Sendable {
        /// Where it came from (a path), for messages.
        public var label: String
        /// The document as written by its author.
        public var bytes: [UInt8]

        /// Creates an input.
        public init(label: String, bytes: [UInt8]) {
            self.label = label
            self.bytes = bytes
        }
    }

    /// Keys and settings of one publication.
    public struct Options: Sendable {
        /// Signs the manifest (and the sequences, unless ``signingKey`` is set).
        public var rootKey: Ed25519PrivateKey
        /// The root key's `key_id` (listed last in `signing_keys`).
        public var rootKeyID: String
        /// Signs the sequences instead of the root.
        public var signingKey: Ed25519PrivateKey?
        /// The signing key's `key_id`.
        public var signingKeyID: String?
        /// Further public keys listed in `signing_keys` (rotation).
        public var trustedKeys: [(keyID: String, publicKey: Ed25519PublicKey)]
        /// Prefix for absolute entry URLs (`<base-url>sequences/<sha>.json`); `nil` = relative URLs.
        public var baseURL: String?
        /// `min_sdk_version` of every entry.
        public var minSDKVersion: String
        /// `expires_at` = now + this many milliseconds; `nil` = no expiry.
        public var expiresInMilliseconds: Int64?
        /// Largest accepted document, in bytes.
        public var maxSequenceBytes: Int
        /// The publication time, Unix ms.
        public var now: Int64

        /// Creates options.
        public init(
            rootKey: Ed25519PrivateKey, rootKeyID: String, signingKey: Ed25519PrivateKey? = nil, signingKeyID: String? = nil,
            trustedKeys: [(keyID: String, publicKey: Ed25519PublicKey)] = [], baseURL: String? = nil,
            minSDKVersion: String = "0.0.0", expiresInMilliseconds: Int64? = nil, maxSequenceBytes: Int = 1_048_576,
            now: Int64
        ) {
            self.rootKey = rootKey
            self.rootKeyID = rootKeyID
            self.signingKey = signingKey
            self.signingKeyID = signingKeyID
            self.trustedKeys = trustedKeys
            self.baseURL = baseURL
            self.minSDKVersion = minSDKVersion
            self.expiresInMilliseconds = expiresInMilliseconds
            self.maxSequenceBytes = maxSequenceBytes
            self.now = now
        }
    }

    /// A file to write, relative to the output directory.
    public struct Artifact: Sendable, Hashable {
        /// `sequences/<sha>.json` or `sequences/<sha>.sig`.
        public var path: String
        /// Its bytes.
        public var bytes: [UInt8]
    }

    /// Everything a publication writes.
    public struct Output: Sendable {
        /// `DIR/manifest.json`: signature line, LF, canonical body.
        public var manifestFile: [UInt8]
        /// The canonical body.
        public var body: [UInt8]
        /// The sequence and signature files.
        public var artifacts: [Artifact]
        /// The new `manifest_version`.
        public var manifestVersion: Int64
        /// The listed entries, by name.
        public var entries: [ManifestEntry]
        /// The `removed` list written.
        public var removed: [Manifest.Removal]
    }

    /// Builds a publication.
    ///
    /// - Parameters:
    ///   - sequences: the documents; one per name.
    ///   - previousManifest: the current `DIR/manifest.json`, if any: its version and `removed`
    ///     list carry forward; it must verify with the root key.
    ///   - options: keys and settings.
    /// - Returns: the files to write.
    /// - Throws: ``SyncError`` `sequenceInvalid` (a document has problems; `context["problems"]`
    ///   lists `label: pointer: code: message` lines), `invalidInput` (duplicate name or
    ///   `key_id`, missing signing key id, a bad `min_sdk_version` or base URL, or a previous
    ///   manifest that does not verify with the root key).
    /// 9999-12-31T23:59:59Z in Unix ms: the last instant RFC 3339 can write.
    static let latestExpiry: Int64 = 253_402_300_799_000

    /// `names` without repeats, sorted, both by UTF-8 bytes (SYNC.md §3.11 step 3).
    static func sortedUnique(_ names: some Sequence<String>) -> [String] {
        var byBytes: [[UInt8]: String] = [:]
        for name in names { byBytes[Array(name.utf8)] = name }
        return byBytes.values.sorted { compareUTF8($0, $1) < 0 }
    }

    public static func publish(
        sequences: [Input], previousManifest: [UInt8]?, options: Options
    ) throws(SyncError) -> Output {
        let previous = try previousManifest.map { bytes throws(SyncError) in try verifyPrevious(bytes, root: options.rootKey) }
        guard SDKVersion.isWellFormed(options.minSDKVersion) else {
            throw SyncError(.invalidInput, "--min-sdk '\(options.minSDKVersion)' is not dotted numbers like 1.2.0")
        }
        if let expires = options.expiresInMilliseconds {
            // RFC 3339 years have four digits: an expiry past 9999 would make a manifest every
            // device refuses as malformed (SYNC.md §3.3).
            let (at, overflow) = options.now.addingReportingOverflow(expires)
            guard expires >= 0, !overflow, at <= Self.latestExpiry else {
                throw SyncError(.invalidInput, "--expires-in is too far ahead: expires_at must be before the year 10000")
            }
        }
        if let base = options.baseURL {
            guard base.hasPrefix("https://") || base.hasPrefix("http://"), let url = URL(string: base) else {
                throw SyncError(.invalidInput, "--base-url must be an absolute http(s) URL")
            }
            // Entries a device must refuse (SYNC.md §1 transport rules, E5) are not published;
            // http://localhost and http://127.0.0.1 stay possible for local testing.
            if let reason = TransportPolicy(allowInsecureLocalhost: true).refusal(for: url) {
                throw SyncError(.invalidInput, "--base-url \(reason): devices would refuse every entry")
            }
        }
        let sequenceKey = options.signingKey ?? options.rootKey
        let sequenceKeyID: String
        if options.signingKey != nil {
            guard let id = options.signingKeyID, !id.isEmpty else {
                throw SyncError(.invalidInput, "a signing key needs a key id (--signing-key-id)")
            }
            sequenceKeyID = id
        } else {
            sequenceKeyID = options.rootKeyID
        }
        // Step 6: signing_keys, root last; duplicate ids are an error.
        var keyList: [(String, Ed25519PublicKey)] = []
        if let signing = options.signingKey, sequenceKeyID != options.rootKeyID { keyList.append((sequenceKeyID, signing.publicKey)) }
        keyList += options.trustedKeys.map { ($0.keyID, $0.publicKey) }
        keyList.append((options.rootKeyID, options.rootKey.publicKey))
        var ids: Set<String> = []
        for (id, _) in keyList {
            guard !id.isEmpty else { throw SyncError(.invalidInput, "key ids must not be empty") }
            guard ids.insert(id).inserted else { throw SyncError(.invalidInput, "key id '\(id)' is used twice in signing_keys") }
        }
        if options.signingKey != nil && sequenceKeyID == options.rootKeyID
            && options.signingKey?.publicKey != options.rootKey.publicKey
        {
            throw SyncError(.invalidInput, "the signing key id '\(sequenceKeyID)' is the root key's id")
        }

        // Step 2: validate; one input per name.
        var problems: [String] = []
        var compiled: [(Input, CompiledSequence, [UInt8])] = []
        // Names, key ids and handler names are compared by their UTF-8 bytes, as JSON strings
        // are: Swift's `==` would take "é" and "e\u{301}" for one name.
        var names: [[UInt8]: String] = [:]
        let limits = SequenceLimits(maxDocumentBytes: options.maxSequenceBytes)
        for input in sequences {
            let result = SequenceLoader.load(input.bytes, limits: limits)
            guard let sequence = result.sequence else {
                problems += result.problems.map { "\(input.label): \($0)" }
                continue
            }
            if let first = names[Array(sequence.name.utf8)] {
                throw SyncError(.invalidInput, "\(input.label) and \(first) both define sequence '\(sequence.name)'")
            }
            names[Array(sequence.name.utf8)] = input.label
            let canonical = try CanonicalJSON.canonicalize(input.bytes)
            guard let check = SequenceLoader.load(canonical, limits: limits).sequence,
                check.name == sequence.name, check.version == sequence.version
            else { throw SyncError(.invalidInput, "\(input.label): the canonical form does not validate") }
            compiled.append((input, sequence, canonical))
        }
        if !problems.isEmpty {
            throw SyncError(
                .sequenceInvalid, "invalid sequences (\(problems.count) problems):\n" + problems.joined(separator: "\n"),
                context: ["problems": .array(problems.map(JSONValue.string))])
        }

        // Step 3: canonical bytes, hash, signature, entry.
        var artifacts: [Artifact] = []
        var entries: [ManifestEntry] = []
        for (_, sequence, canonical) in compiled.sorted(by: { $0.1.name.utf8.lexicographicallyPrecedes($1.1.name.utf8) }) {
            let sha = SHA256.hexDigest(of: canonical)
            let signature = Base64.encode(sequenceKey.signature(for: canonical))
            artifacts.append(Artifact(path: "sequences/\(sha).json", bytes: canonical))
            artifacts.append(Artifact(path: "sequences/\(sha).sig", bytes: Array(signature.utf8)))
            let relative = "sequences/\(sha).json"
            let url = options.baseURL.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + relative } ?? relative
            entries.append(
                ManifestEntry(
                    name: sequence.name, version: sequence.version, url: url, signingKeyID: sequenceKeyID, sha256: sha,
                    requiredHandlers: Self.sortedUnique(sequence.handlerNames), minSDKVersion: options.minSDKVersion))
        }

        // Step 4: removed.
        let listed = Set(entries.map(\.name))
        var removed: [String: Manifest.Removal] = [:]
        for removal in previous?.removed ?? [] where !listed.contains(removal.name) {
            if removal.removedAt >= options.now - removalRetentionMilliseconds, removed[removal.name] == nil {
                removed[removal.name] = removal
            }
        }
        for raw in previous?.sequences ?? [] {
            let name = ManifestEntry.identity(of: raw).name
            if !name.isEmpty, !listed.contains(name), removed[name] == nil {
                removed[name] = Manifest.Removal(
                    name: name, removedAt: options.now, removedAtText: RFC3339.string(fromMilliseconds: options.now))
            }
        }
        let removedList = removed.values.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }

        // Step 5: version and times.
        let version = max(options.now, (previous?.manifestVersion ?? .min).addingReportingOverflow(1).partialValue)
        var body: JSONObject = [
            "generated_at": .string(RFC3339.string(fromMilliseconds: options.now)),
            "manifest_version": .integer(version),
            "removed": .array(removedList.map { ["name": .string($0.name), "removed_at": .string($0.removedAtText)] }),
            "sequences": .array(
                entries.map { e in
                    [
                        "name": .string(e.name), "version": .integer(Int64(e.version)), "url": .string(e.url),
                        "signing_key_id": .string(e.signingKeyID), "sha256": .string(e.sha256),
                        "required_handlers": .array(e.requiredHandlers.map(JSONValue.string)),
                        "min_sdk_version": .string(e.minSDKVersion ?? "0.0.0"),
                    ]
                }),
            "signing_keys": .array(keyList.map { ["key_id": .string($0.0), "public_key": .string($0.1.base64)] }),
        ]
        if let expires = options.expiresInMilliseconds {
            body["expires_at"] = .string(RFC3339.string(fromMilliseconds: options.now + expires))
        }
        // Step 7: the canonical body, signed by the root.
        let bodyBytes = CanonicalJSON.bytes(of: .object(body))
        return Output(
            manifestFile: SignedManifestFile.make(body: bodyBytes, signedBy: options.rootKey), body: bodyBytes,
            artifacts: artifacts, manifestVersion: version, entries: entries, removed: removedList)
    }

    /// Step 1: the previous manifest must be signed by this root and well-formed.
    private static func verifyPrevious(_ bytes: [UInt8], root: Ed25519PrivateKey) throws(SyncError) -> Manifest {
        do throws(SyncError) {
            let file = try SignedManifestFile(bytes: bytes)
            guard root.publicKey.isValidSignature(file.signature, for: file.body) else {
                throw SyncError.manifestRejected(.manifestSignatureInvalid, "it is not signed by this root key")
            }
            return try Manifest(body: file.body)
        } catch {
            throw SyncError(.invalidInput, "the existing manifest.json cannot be carried forward: \(error.message)")
        }
    }
}

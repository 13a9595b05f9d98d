import Foundation
import FuzzSupport
import Stepwise

/// Fuzzes the signed-manifest parsers of SYNC.md §3: the file split (M3), verification with the
/// test root key (M1–M8), the body parser (M5, run directly on the bytes after the first LF so
/// that the fuzzer does not have to forge signatures), entry type checks (E1), the SDK version
/// check (E2), artifact URL resolution and the transport policy (E5), the `.sig` decoder (E10)
/// and root key parsing.
///
/// Invariants: every rejection is one of the documented reasons with a bounded message; no
/// message repeats an entry URL's query string (tokens may live there); an accepted entry URL
/// passes the transport rules and its signature URL ends in `.sig` without a fragment.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    verifyFile(bytes)
    let body = bytes.firstIndex(of: 0x0A).map { Array(bytes[($0 + 1)...]) } ?? bytes
    parseBody(body)
    decodeSignatureFile(bytes)
    _ = try? ManifestRootKeys(rootPublicKey: String(decoding: bytes.prefix(256), as: UTF8.self))
    return 0
}

/// `stepwise-test-root-1` of `Fixtures/signing` (a test-only key).
private let rootKeys: ManifestRootKeys = {
    do {
        return try ManifestRootKeys(rootPublicKey: "Nz5XgYPm9wWMq6BzPJWhG3hbAqqz7xG2+HwWLMbcr0k=")
    } catch {
        fuzzFailure("the test root key does not parse: \(error)")
    }
}()

/// 2026-05-19T10:30:00Z.
private let now: Int64 = 1_779_186_600_000

private let manifestURL = URL(string: "https://cdn.example.com/app/manifest.json")!

private let fileReasons: Set<String> = ["too_large", "manifest_malformed", "manifest_signature_invalid", "manifest_expired"]

private func verifyFile(_ bytes: [UInt8]) {
    let verifier = ManifestVerifier(rootKeys: rootKeys, maxManifestBytes: 3_000)
    do {
        let verified = try verifier.verify(bytes, now: now)
        fuzzCheck(bytes.count <= 3_000, "accepted a file over the size cap")
        fuzzCheck(verified.signature.count == 64, "accepted a \(verified.signature.count)-byte signature")
        fuzzCheck(bytes.suffix(verified.body.count).elementsEqual(verified.body), "the body is not the file's tail")
        if let expiresAt = verified.manifest.expiresAt { fuzzCheck(expiresAt > now, "accepted an expired manifest") }
        for key in verified.trustedKeys {
            fuzzCheck(verified.manifest.signingKeys.contains { $0.keyID == key.keyID }, "trusted a key not listed")
        }
        for entry in verified.manifest.sequences { checkEntry(entry) }
    } catch {
        fuzzCheck(error.reason.map { fileReasons.contains($0.rawValue) } == true, "unexpected rejection \(error)")
        checkMessage(error.message, "SyncError")
    }
    do {
        let split = try SignedManifestFile(bytes: bytes)
        fuzzCheck(split.signature.count == 64, "split a \(split.signature.count)-byte signature")
    } catch {
        fuzzCheck(error.reason?.rawValue == "manifest_malformed", "unexpected split rejection \(error)")
        checkMessage(error.message, "SyncError")
    }
}

private func parseBody(_ body: [UInt8]) {
    do {
        let manifest = try Manifest(body: body)
        fuzzCheck(Set(manifest.signingKeys.map(\.keyID)).count == manifest.signingKeys.count, "duplicate key ids")
        fuzzCheck(manifest.signingKeys.allSatisfy { !$0.keyID.isEmpty }, "an empty key id")
        for entry in manifest.sequences { checkEntry(entry) }
    } catch {
        fuzzCheck(error.reason?.rawValue == "manifest_malformed", "unexpected body rejection \(error)")
        checkMessage(error.message, "SyncError")
    }
}

private func checkEntry(_ raw: JSONValue) {
    let entry: ManifestEntry
    do {
        entry = try ManifestEntry(raw)
    } catch {
        fuzzCheck(error.outcome == .invalidEntry, "E1 failed with \(error.outcome)")
        checkMessage(error.message, "EntryFailure")
        _ = ManifestEntry.identity(of: raw)
        return
    }
    fuzzCheck(entry.name.contains { !$0.isWhitespace }, "accepted a blank name")
    fuzzCheck(entry.version >= 0, "accepted version \(entry.version)")
    fuzzCheck(entry.sha256.utf8.count == 64, "accepted a sha256 of \(entry.sha256.utf8.count) characters")
    do {
        try ManifestEntryVerifier.checkSDKVersion(entry, sdkVersion: "1.2.3")
    } catch {
        fuzzCheck(error.outcome == .skippedSDKVersion, "E2 failed with \(error.outcome)")
    }
    let query = URL(string: entry.url, relativeTo: manifestURL)?.query
    for policy in [TransportPolicy(), TransportPolicy(allowInsecureLocalhost: true)] {
        do {
            let urls = try ManifestEntryVerifier.artifactURLs(for: entry, manifestURL: manifestURL, policy: policy)
            fuzzCheck(policy.refusal(for: urls.sequence) == nil, "an accepted sequence URL is refused")
            fuzzCheck(urls.signature.fragment == nil, "the signature URL keeps a fragment")
            // The percent-encoded path: `URL.path` decodes it and is empty when an escape is not UTF-8.
            let signaturePath = URLComponents(url: urls.signature, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
            fuzzCheck(signaturePath.hasSuffix(".sig"), "the signature URL does not end in .sig: \(urls.signature)")
            if !policy.allowInsecureLocalhost {
                fuzzCheck(urls.sequence.scheme?.lowercased() == "https", "accepted \(urls.sequence.scheme ?? "no scheme")")
            }
        } catch {
            fuzzCheck(error.outcome == .invalidEntry, "E5 failed with \(error.outcome)")
            checkMessage(error.message, "EntryFailure")
            if let query, query.utf8.count >= 4 {
                fuzzCheck(!error.message.contains(query), "an E5 message repeats the URL's query string")
            }
        }
    }
}

private func decodeSignatureFile(_ bytes: [UInt8]) {
    do {
        let signature = try ManifestEntryVerifier.decodeSignature(bytes)
        fuzzCheck(signature.count == 64, "decoded a \(signature.count)-byte signature")
    } catch {
        fuzzCheck(error.outcome == .signatureMalformed, "E10 failed with \(error.outcome)")
        checkMessage(error.message, "EntryFailure")
    }
}

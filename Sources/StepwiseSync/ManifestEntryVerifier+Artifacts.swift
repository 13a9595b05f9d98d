import Foundation
import StepwiseCrypto

extension ManifestEntryVerifier {
    /// The artifact part of §3.7: E5 (URLs), E6 (download), E7 (hash), E8 (key), E9 (`.sig`
    /// download), E10 (decode), E11 (signature) and E12 (validation), in that order.
    ///
    /// - Parameters:
    ///   - registeredHandlers: `nil` skips the handler part of E12.
    /// - Returns: the verified sequence.
    /// - Throws: ``EntryFailure`` at the first failing check.
    static func downloadAndVerify(
        _ entry: ManifestEntry, manifestURL: URL, trustedKeys: [VerifiedManifest.TrustedKey], policy: TransportPolicy,
        session: ManifestHTTPSession, downloadCap: Int, maxSequenceBytes: Int, registeredHandlers: Set<String>?
    ) async throws(EntryFailure) -> VerifiedSequence {
        let urls = try artifactURLs(for: entry, manifestURL: manifestURL, policy: policy)
        let bytes = try await download(
            urls.sequence, session: session, cap: downloadCap, what: "sequence", failed: .downloadFailed,
            tooLarge: .tooLarge, refused: .invalidEntry)
        try checkHash(bytes, entry: entry)
        let key = try signingKey(for: entry, in: trustedKeys)
        let signatureFile = try await download(
            urls.signature, session: session, cap: ManifestSyncConfiguration.maxSignatureBytes, what: "signature",
            failed: .signatureDownloadFailed, tooLarge: .signatureDownloadFailed, refused: .signatureDownloadFailed)
        let signature = try decodeSignature(signatureFile)
        try checkSignature(signature, of: bytes, by: key)
        let sequence = try checkSequence(
            bytes, entry: entry, maxBytes: maxSequenceBytes, registeredHandlers: registeredHandlers)
        return VerifiedSequence(entry: entry, bytes: bytes, sha256: entry.sha256, sequence: sequence)
    }

    private static func download(
        _ url: URL, session: ManifestHTTPSession, cap: Int, what: String, failed: EntryOutcome, tooLarge: EntryOutcome,
        refused: EntryOutcome
    ) async throws(EntryFailure) -> [UInt8] {
        let response: HTTPResponse
        do {
            response = try await session.get(url, maxBytes: cap)
        } catch {
            switch error {
            case .refused(let message): throw EntryFailure(refused, message)
            case .tooLarge: throw EntryFailure(tooLarge, "the \(what) is larger than \(cap) bytes")
            case .unreachable(let message): throw EntryFailure(failed, "\(what) download failed: \(message)")
            case .tokenProvider(let message): throw EntryFailure(failed, "\(what) download failed: \(message)")
            }
        }
        guard response.isSuccess else {
            throw EntryFailure(failed, "\(what) download answered HTTP \(response.statusCode)")
        }
        return response.body
    }
}

public import Foundation

/// The two URLs of a manifest entry (SYNC.md §3.4): the sequence and its detached signature.
///
/// ```swift
/// let urls = try ArtifactURLs(entryURL: "sequences/ab….json",
///                             manifestURL: URL(string: "https://cdn.example.com/app/manifest.json")!)
/// urls.sequence    // https://cdn.example.com/app/sequences/ab….json
/// urls.signature   // https://cdn.example.com/app/sequences/ab….sig
/// ```
public struct ArtifactURLs: Sendable, Hashable {
    /// The sequence URL: `entry.url` resolved (RFC 3986 §5) against the manifest URL.
    public let sequence: URL
    /// The signature URL: the sequence URL with its path's final `.json` replaced by `.sig`
    /// (`.sig` appended when the path does not end in `.json`); query kept, fragment dropped.
    public let signature: URL

    /// Resolves an entry's URL.
    ///
    /// - Throws: ``EntryFailure`` `invalid_entry` when the reference does not parse or resolve
    ///   to an absolute URL with a host (or a `file:` URL). Nothing else.
    public init(entryURL: String, manifestURL: URL) throws(EntryFailure) {
        // A reference with characters RFC 3986 does not allow (spaces, non-ASCII) is refused, not repaired.
        guard URL(string: entryURL, encodingInvalidCharacters: false) != nil,
            let reference = URL(string: entryURL, relativeTo: manifestURL)?.absoluteURL,
            let scheme = reference.scheme?.lowercased(),
            scheme == "file" || !(reference.host ?? "").isEmpty
        else { throw EntryFailure(.invalidEntry, "entry 'url' is not a valid absolute or relative URL") }
        guard var components = URLComponents(url: reference, resolvingAgainstBaseURL: true) else {
            throw EntryFailure(.invalidEntry, "entry 'url' is not a valid absolute or relative URL")
        }
        components.fragment = nil
        guard let sequence = components.url else {
            throw EntryFailure(.invalidEntry, "entry 'url' is not a valid absolute or relative URL")
        }
        let path = components.percentEncodedPath
        components.percentEncodedPath = path.hasSuffix(".json") ? String(path.dropLast(5)) + ".sig" : path + ".sig"
        guard let signature = components.url else {
            throw EntryFailure(.invalidEntry, "entry 'url' has no usable signature URL")
        }
        self.sequence = sequence
        self.signature = signature
    }
}

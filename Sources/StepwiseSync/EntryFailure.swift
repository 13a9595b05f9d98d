/// An entry that stopped at one of the checks of SYNC.md §3.7: its outcome and a message.
///
/// Not an engine error: a failing entry is data in ``SyncResult/entries``, never thrown out of
/// a sync.
///
/// ```swift
/// do { _ = try ManifestEntry(raw) } catch { print(error.outcome, error.message) }  // invalid_entry …
/// ```
public struct EntryFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The §3.7 outcome.
    public let outcome: EntryOutcome
    /// What went wrong (never a URL query string or key material).
    public let message: String

    /// Creates a failure.
    public init(_ outcome: EntryOutcome, _ message: String) {
        self.outcome = outcome
        self.message = message
    }

    /// `<outcome>: <message>`.
    public var description: String { "\(outcome): \(message)" }
}

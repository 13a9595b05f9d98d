/// How sync responses encode commands (SYNC.md §2.4).
public enum CommandFormat: String, Sendable, Hashable, CaseIterable {
    /// `{"id", "type", "payload": {…}}`: the Stepwise form (the default).
    case nested
    /// The orch8 seed documents' flat form: payload fields beside `id` and `type`, with an
    /// object `output` or `input` sent as JSON text. Stepwise devices accept it too.
    case flat
}

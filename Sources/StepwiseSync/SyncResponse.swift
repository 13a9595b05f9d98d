public import StepwiseExecution
public import StepwiseJSON

/// A sync response body, decoded as SYNC.md §2.4 reads it, with bounds a hostile or broken
/// server cannot get around.
///
/// The rules, in order:
///
/// 1. A body over ``maximumBodyBytes`` (4 MiB) is refused before it is parsed.
/// 2. The body must be a JSON object (the parser's own limits apply: depth 256, no duplicate
///    keys); anything else is refused.
/// 3. `sync_interval_secs`: an integer is taken as is (the scheduler clamps it); missing or
///    anything else (`1e300`, `"30"`, `2.5`) means 30.
/// 4. `commands`: missing means none; a value that is not an array means none too, with a
///    warning.
/// 5. The first ``maximumCommands`` (500) elements are decoded with ``SyncCommand/init(json:)``:
///    the `payload` form or the flat form (the command minus `id` and `type`), `output`/`input`
///    given as JSON text parsed. An element without a string `id` and a string `type` cannot be
///    acknowledged: it is skipped and listed in ``skipped``.
/// 6. Elements past the first ``maximumCommands`` are not looked at: they are counted in
///    ``ignoredCommands`` and left for a later round trip. Nothing acknowledges them, so a server
///    that keeps unacknowledged commands (as SYNC.md §2.6 requires) sends them again once the
///    first ones are acknowledged.
///
/// ```swift
/// let response = try SyncResponse(decoding: Array(#"{"commands": [{"id": "c1", "type": "cancel_instance", "payload": {"instance_id": "I"}}]}"#.utf8))
/// response.intervalSeconds      // 30
/// response.commands.map(\.id)   // ["c1"]
/// ```
public struct SyncResponse: Sendable, Hashable {
    /// A command of the response that is not executed, and why.
    public struct SkippedCommand: Sendable, Hashable {
        /// Its 0-based position in the response's `commands`.
        public let index: Int
        /// Its `id` when that was a string.
        public let id: String?
        /// Why it was skipped, e.g. `command without a string id and type`.
        public let reason: String

        /// Creates a record of a skipped command.
        public init(index: Int, id: String?, reason: String) {
            self.index = index
            self.id = id
            self.reason = reason
        }
    }

    /// The largest body decoded, in bytes (4 MiB); a larger one is refused unparsed.
    public static let maximumBodyBytes = 4 * 1024 * 1024
    /// The most commands one response has decoded; later ones are ignored (see ``ignoredCommands``).
    public static let maximumCommands = 500
    /// The interval used when the response gives no integer `sync_interval_secs`.
    public static let defaultIntervalSeconds = 30

    /// The interval the server asked for (`sync_interval_secs`), or 30.
    public let intervalSeconds: Int
    /// The decodable commands among the first ``maximumCommands``, in the response's order.
    public let commands: [SyncCommand]
    /// The commands' JSON, parallel to ``commands``, for ``StepwiseEngine/executeSyncCommand(_:)``.
    let commandValues: [JSONValue]
    /// Commands among the first ``maximumCommands`` without a string `id` and `type`.
    public let skipped: [SkippedCommand]
    /// How many elements the response's `commands` array had (0 when missing or not an array).
    public let receivedCommands: Int
    /// How many of them were past ``maximumCommands`` and not looked at.
    public let ignoredCommands: Int
    /// Everything unusual about the response, for a log: a non-array `commands`, a non-integer
    /// `sync_interval_secs`, skipped and ignored commands. Each is short and never quotes the body.
    public let warnings: [String]

    /// Decodes a response body.
    ///
    /// - Parameter body: the bytes of a 2xx response.
    /// - Throws: ``SyncError`` with code `network` when the body is larger than
    ///   ``maximumBodyBytes`` (`sync response body of N bytes exceeds the 4 MiB limit`, context
    ///   `body_bytes`, `limit_bytes`) or is not a JSON object (`sync answered a body that is not a
    ///   JSON object`, context `json_error` when it did not parse).
    public init(decoding body: [UInt8]) throws(SyncError) {
        guard body.count <= Self.maximumBodyBytes else {
            throw SyncError(
                .network, "sync response body of \(body.count) bytes exceeds the 4 MiB limit",
                context: ["body_bytes": .integer(Int64(body.count)), "limit_bytes": .integer(Int64(Self.maximumBodyBytes))])
        }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(body)
        } catch {
            throw SyncError(
                .network, "sync answered a body that is not a JSON object", context: ["json_error": .string(error.description)])
        }
        guard case .object(let object) = parsed else {
            throw SyncError(.network, "sync answered a body that is not a JSON object")
        }
        self.init(object: object)
    }

    /// Decodes a response already parsed as a JSON object (rules 3–6 of the type's summary).
    public init(object: JSONObject) {
        var warnings: [String] = []
        var interval = Self.defaultIntervalSeconds
        switch object["sync_interval_secs"] {
        case nil:
            break
        case let value?:
            // A JSON integer only: `12.0` is a float (§1.1's rule), so 30 is used.
            if case .integer(let n) = value {
                interval = Int(clamping: n)
            } else {
                warnings.append("sync_interval_secs is not an integer (a \(value.typeName)): 30 used")
            }
        }
        let elements: [JSONValue]
        switch object["commands"] {
        case nil:
            elements = []
        case .array(let a)?:
            elements = a
        case let value?:
            elements = []
            warnings.append("commands is not an array (a \(value.typeName)): no command executed")
        }
        var commands: [SyncCommand] = []
        var values: [JSONValue] = []
        var skipped: [SkippedCommand] = []
        for (index, element) in elements.prefix(Self.maximumCommands).enumerated() {
            if let command = SyncCommand(json: element) {
                commands.append(command)
                values.append(element)
            } else {
                skipped.append(
                    SkippedCommand(index: index, id: element["id"]?.stringValue.map(Self.shown), reason: "command without a string id and type"))
            }
        }
        if !skipped.isEmpty {
            warnings.append("\(skipped.count) command(s) without a string id and type skipped (cannot be acknowledged)")
        }
        let ignored = Swift.max(elements.count - Self.maximumCommands, 0)
        if ignored > 0 {
            warnings.append("\(ignored) command(s) past the first \(Self.maximumCommands) ignored until a later sync")
        }
        self.intervalSeconds = interval
        self.commands = commands
        self.commandValues = values
        self.skipped = skipped
        self.receivedCommands = elements.count
        self.ignoredCommands = ignored
        self.warnings = warnings
    }

    /// An id as reports quote it: at most 128 Unicode scalars, then `…`.
    static func shown(_ id: String) -> String {
        let scalars = id.unicodeScalars
        guard scalars.count > 128 else { return id }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars.prefix(128))
        return String(view) + "…"
    }
}

public import ArgumentParser
import Stepwise

/// `stepwise dead-letters`: lists the records of failed root instances (SEMANTICS §6.7), and
/// acknowledges, redrives (§6.8) or purges them.
///
/// Exit status: 0 done, 1 refused by the engine (no such record, not redrivable), 2 unusable input.
public struct DeadLettersCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "dead-letters",
        abstract: "List failed instances' dead letters; acknowledge, redrive or purge them.",
        discussion: """
            One record per root instance that ended failed, newest first. --ack marks one handled; --redrive \
            returns its failed steps to pending with a fresh retry budget (run it with `stepwise resume ID`); \
            --purge deletes acknowledged records (with --include-unacknowledged, all) older than --older-than. \
            ID may be the record's id or its instance's id, or a unique prefix of either. Exit status: 0 done, \
            1 refused (not found, not failed any more, dedup key taken), 2 unusable input.
            """
    )

    @Flag(help: "List only records not yet acknowledged.")
    var unacknowledged = false

    @Option(help: "At most this many (1…500).")
    var limit = 50

    @Option(help: ArgumentHelp("Continue a listing after this cursor (printed as `next_cursor` / the … more line).", valueName: "cursor"))
    var after: String?

    @Option(name: .customLong("ack"), help: ArgumentHelp("Acknowledge this record.", valueName: "id"))
    var acknowledgeID: String?

    @Option(name: .customLong("redrive"), help: ArgumentHelp("Redrive this record's instance.", valueName: "id"))
    var redriveID: String?

    @Flag(help: "Delete records (acknowledged ones unless --include-unacknowledged).")
    var purge = false

    @Option(help: ArgumentHelp("With --purge: only records older than this (90s, 30m, 12h, 7d).", valueName: "age"))
    var olderThan = "0s"

    @Flag(help: "With --purge: unacknowledged records too.")
    var includeUnacknowledged = false

    @Flag(help: "Write JSON.")
    var json = false

    @OptionGroup var database: DatabaseOptions

    public init() {}

    public func validate() throws {
        let actions = [acknowledgeID != nil, redriveID != nil, purge].filter { $0 }.count
        if actions > 1 { throw ValidationError("use one of --ack, --redrive and --purge at a time") }
        if Self.milliseconds(olderThan) == nil {
            throw ValidationError("--older-than '\(olderThan)' is not an age like 90s, 30m, 12h or 7d")
        }
        guard (1...500).contains(limit) else { throw ValidationError("--limit must be between 1 and 500") }
        if after != nil && (acknowledgeID != nil || redriveID != nil || purge) {
            throw ValidationError("--after continues a listing; it cannot be used with --ack, --redrive or --purge")
        }
    }

    public func run() async throws {
        let output = await execute(style: .standardOutput, now: SystemClock().now())
        try output.finish()
    }

    /// Performs the action (or lists); `now` (Unix ms) makes the "failed … ago" column.
    func execute(style: TerminalStyle = .plain, now: Int64) async -> CommandOutput {
        let listing = acknowledgeID == nil && redriveID == nil && !purge
        let opened: OpenedDatabase
        do {
            opened = try OpenedDatabase.open(database.db, mustExist: true, exclusive: !listing)
        } catch {
            return error.output
        }
        let output: CommandOutput
        // The listing takes no lock: it must write nothing (no housekeeping beside an engine
        // that may be running on the file).
        if listing { await opened.engine.serveReadsOnly() }
        if redriveID != nil { await opened.standInForStoredHandlers() }
        do {
            output = try await perform(on: opened.engine, style: style, now: now)
        } catch {
            output = CommandFailure.output(for: error)
        }
        await opened.close()
        return output
    }

    private func perform(on engine: StepwiseEngine, style: TerminalStyle, now: Int64) async throws -> CommandOutput {
        let db = DatabaseOptions.flag(for: database.db)
        if let acknowledgeID {
            let letter = try await Self.find(acknowledgeID, on: engine)
            try await engine.acknowledgeDeadLetter(letter.id)
            return report(
                ["acknowledged": .string(letter.id)],
                text: "acknowledged: dead letter \(letter.id) (instance \(letter.instanceId))\n")
        }
        if let redriveID {
            let letter = try await Self.find(redriveID, on: engine)
            try await engine.redrive(deadLetterId: letter.id)
            return report(
                ["redriven": .string(letter.id), "instance_id": .string(letter.instanceId.rawValue)],
                text:
                    "redriven: instance \(letter.instanceId) is scheduled again from block '\(letter.blockId ?? "?")'\n"
                    + "run it with: stepwise resume \(letter.instanceId)\(db)\n")
        }
        if purge {
            let age = Self.milliseconds(olderThan) ?? 0
            let count = try await engine.purgeDeadLetters(olderThanMs: age, acknowledgedOnly: !includeUnacknowledged)
            return report(
                ["purged": .integer(Int64(count))], text: "purged \(count) dead letter\(count == 1 ? "" : "s")\n")
        }
        let page: Page<DeadLetter>
        do {
            page = try await engine.deadLetters(unacknowledgedOnly: unacknowledged, limit: limit, after: after)
        } catch {
            // A cursor the engine cannot read is unusable input, like any other bad argument.
            guard error.code == .invalidInput else { throw error }
            throw CommandFailure(error.message, exitCode: 2)
        }
        if json {
            let value: JSONValue = [
                "dead_letters": .array(page.items.map(\.jsonValue)), "has_more": .bool(page.nextCursor != nil),
                "next_cursor": page.nextCursor.map(JSONValue.string) ?? .null,
            ]
            return CommandOutput(standardOutput: JSONWriter.string(value, options: .prettyPrinted) + "\n")
        }
        guard !page.items.isEmpty else {
            return CommandOutput(
                standardOutput: unacknowledged ? "no unacknowledged dead letters\n" : "no dead letters\n")
        }
        var rows = [["ID", "INSTANCE", "SEQUENCE", "BLOCK", "ATTEMPTS", "FAILED", "STATUS"]]
        var errors: [String] = []
        for letter in page.items {
            let status = letter.redrivenAt != nil ? "redriven" : (letter.acknowledged ? "acknowledged" : "new")
            rows.append([
                String(letter.id.prefix(8)), letter.instanceId.rawValue,
                "\(letter.sequenceName) v\(letter.sequenceVersion)",
                letter.blockId ?? "-", String(letter.attempts), DurationText.text(letter.failedAt, now) + " ago",
                status,
            ])
            errors.append(letter.error.message)
        }
        let table = Table.render(rows) { column, value in column == 6 && value == "new" ? style.red(value) : value }
        var text = ""
        for (index, line) in table.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            text += line + "\n"
            if index > 0 { text += "  " + style.dim("└ " + errors[index - 1]) + "\n" }
        }
        if let next = page.nextCursor {
            // The same listing, continued: the filters repeated with the cursor.
            var command = "stepwise dead-letters"
            if unacknowledged { command += " --unacknowledged" }
            if limit != 50 { command += " --limit \(limit)" }
            text += "… more: \(command) --after \(next)\(db)\n"
        }
        text += "act on one: stepwise dead-letters --ack ID | --redrive ID\(db)   (ID: either column, or a prefix)\n"
        return CommandOutput(standardOutput: text)
    }

    private func report(_ value: JSONObject, text: String) -> CommandOutput {
        json
            ? CommandOutput(standardOutput: JSONWriter.string(.object(value), options: .prettyPrinted) + "\n")
            : CommandOutput(standardOutput: text)
    }

    /// The record whose id or instance id is `text` or starts with it.
    static func find(_ text: String, on engine: StepwiseEngine) async throws -> DeadLetter {
        let prefix = text.lowercased()
        var matches: [DeadLetter] = []
        var cursor: String?
        repeat {
            let page = try await engine.deadLetters(limit: 500, after: cursor)
            for letter in page.items
            where letter.id.lowercased().hasPrefix(prefix) || letter.instanceId.rawValue.hasPrefix(prefix) {
                if letter.id.lowercased() == prefix || letter.instanceId.rawValue == prefix { return letter }
                matches.append(letter)
            }
            cursor = page.nextCursor
        } while cursor != nil
        if prefix.count < 4 || matches.isEmpty {
            throw CommandFailure(
                "no dead letter matches '\(text)'", exitCode: 1, hint: "List them with `stepwise dead-letters`.")
        }
        if matches.count > 1 {
            throw CommandFailure("'\(text)' matches several dead letters; give more of the id", exitCode: 1)
        }
        return matches[0]
    }

    /// An age like `90s`, `30m`, `12h`, `7d` (or plain milliseconds) in milliseconds.
    static func milliseconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000]
        if let unit = text.last, let factor = units[unit], let n = Int64(text.dropLast()), n >= 0 {
            // Past the range of a timestamp: unusable input, not a trap.
            let (ms, overflow) = n.multipliedReportingOverflow(by: factor)
            return overflow ? nil : ms
        }
        if let n = Int64(text), n >= 0 { return n }
        return nil
    }
}

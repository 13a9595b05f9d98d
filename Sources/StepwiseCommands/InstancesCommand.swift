public import ArgumentParser
import Stepwise

/// `stepwise instances`: lists instances, most recently updated first.
///
/// Exit status: 0 listed (even when none match), 2 unusable input (no database, bad option).
public struct InstancesCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "instances",
        abstract: "List instances, most recently updated first.",
        discussion: "Exit status: 0 listed (also when none match), 2 unusable input."
    )

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp(
            "Only instances in this state (repeatable or comma-separated): "
                + InstanceState.allCases.map(\.rawValue).joined(separator: ", ") + ".",
            valueName: "state"))
    var states: [String] = []

    @Option(help: ArgumentHelp("Only instances of this sequence name.", valueName: "name"))
    var sequence: String?

    @Option(help: "At most this many (1…500).")
    var limit = 50

    @Option(help: ArgumentHelp("Continue a listing after this cursor (printed as `next_cursor` / the … more line).", valueName: "cursor"))
    var after: String?

    @Option(help: ArgumentHelp("Only children of this instance (sub_sequence instances).", valueName: "id"))
    var parent: String?

    @Flag(help: "Write JSON instead of a table.")
    var json = false

    @OptionGroup var database: DatabaseOptions

    public init() {}

    public func validate() throws {
        _ = try parsedStates()
        guard (1...500).contains(limit) else { throw ValidationError("--limit must be between 1 and 500") }
    }

    public func run() async throws {
        let output = await execute(style: .standardOutput, now: SystemClock().now())
        try output.finish()
    }

    /// The states named by `--state`.
    func parsedStates() throws(ValidationError) -> Set<InstanceState> {
        var result: Set<InstanceState> = []
        for name in states.flatMap({ $0.split(separator: ",").map { String($0).lowercased() } }) {
            guard let state = InstanceState(rawValue: name) else {
                throw ValidationError(
                    "unknown state '\(name)'; use one of "
                        + InstanceState.allCases.map(\.rawValue).joined(separator: ", "))
            }
            result.insert(state)
        }
        return result
    }

    /// Lists the instances; `now` (Unix ms) makes the "updated … ago" column.
    func execute(style: TerminalStyle = .plain, now: Int64) async -> CommandOutput {
        var filter: InstanceFilter
        do {
            filter = InstanceFilter(states: try parsedStates(), sequenceName: sequence)
        } catch {
            return CommandFailure(error.message, exitCode: 2).output
        }
        let opened: OpenedDatabase
        do {
            opened = try OpenedDatabase.open(database.db, mustExist: true, exclusive: false)
        } catch {
            return error.output
        }
        // A reader: another command's engine may own the file (it takes no lock, writes nothing).
        await opened.engine.serveReadsOnly()
        if let parent {
            // Shortened like every other id; one that names no instance is refused as `show` refuses it.
            do {
                filter.parent = try await resolveInstanceID(parent, on: opened.engine, database: database.db)
            } catch {
                return error.output
            }
        }
        let page: Page<InstanceSummary>
        do {
            page = try await opened.engine.instances(filter: filter, limit: limit, after: after)
        } catch {
            await opened.close()
            // A cursor the engine cannot read is unusable input, like any other bad argument.
            return CommandFailure(error.message, exitCode: error.code == .invalidInput ? 2 : CommandFailure.engine(error).exitCode).output
        }
        await opened.close()
        if json {
            let report: JSONValue = [
                "instances": .array(page.items.map(InstanceReport.json(summary:))),
                "has_more": .bool(page.nextCursor != nil),
                "next_cursor": page.nextCursor.map(JSONValue.string) ?? .null,
            ]
            return CommandOutput(standardOutput: JSONWriter.string(report, options: .prettyPrinted) + "\n")
        }
        guard !page.items.isEmpty else {
            if let parent = filter.parent {
                return CommandOutput(standardOutput: "instance \(parent) has no child instances" + (filter.states.isEmpty && sequence == nil ? "" : " that match") + "\n")
            }
            let filtered = !filter.states.isEmpty || sequence != nil || after != nil
            return CommandOutput(
                standardOutput: filtered
                    ? "no instances match\n"
                    : "no instances in \(database.db) yet; start one with `stepwise run FILE.json`\n")
        }
        var rows = [["ID", "STATE", "SEQUENCE", "CURRENT STEP", "UPDATED"]]
        for item in page.items {
            var name = "\(item.sequenceName) v\(item.sequenceVersion)"
            if item.parentInstanceId != nil { name += " (child)" }
            rows.append([
                item.instanceId.rawValue, item.state.rawValue, name, item.currentStep ?? "-",
                DurationText.text(item.updatedAt, now) + " ago",
            ])
        }
        var text = Table.render(rows) { column, value in
            column == 1 ? Self.colour(value, style: style) : value
        }
        if let next = page.nextCursor {
            // The same listing, continued: the filters repeated with the cursor.
            var command = "stepwise instances"
            for state in states { command += " --state \(shellQuoted(state))" }
            if let sequence { command += " --sequence \(shellQuoted(sequence))" }
            if let parent { command += " --parent \(parent)" }
            if limit != 50 { command += " --limit \(limit)" }
            text += "… more: \(command) --after \(shellQuoted(next))\(DatabaseOptions.flag(for: database.db))\n"
        }
        return CommandOutput(standardOutput: text)
    }

    static func colour(_ state: String, style: TerminalStyle) -> String {
        switch InstanceState(rawValue: state) {
        case .completed: style.green(state)
        case .failed: style.red(state)
        case .waiting, .paused, .cancelled: style.yellow(state)
        default: state
        }
    }
}

/// Plain text tables: columns padded to their widest cell, the header row dimmed on a terminal.
enum Table {
    /// Renders `rows` (the first is the header); `decorate` styles a cell after padding is computed.
    static func render(_ rows: [[String]], decorate: (_ column: Int, _ value: String) -> String = { $1 }) -> String {
        guard let header = rows.first else { return "" }
        var widths = header.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        var text = ""
        for (r, row) in rows.enumerated() {
            var line = ""
            for (i, cell) in row.enumerated() {
                let padding = i == row.count - 1 ? "" : String(repeating: " ", count: widths[i] - cell.count + 2)
                line += (r == 0 ? cell : decorate(i, cell)) + padding
            }
            text += line + "\n"
        }
        return text
    }
}

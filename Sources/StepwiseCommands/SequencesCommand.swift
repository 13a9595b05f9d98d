public import ArgumentParser
import Stepwise

/// `stepwise sequences`: lists the sequence versions stored in a database, with the version
/// `start` chooses and how many unfinished instances each version pins.
///
/// Exit status: 0 listed (also when none are stored), 2 unusable input (no database).
public struct SequencesCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sequences",
        abstract: "List the sequence versions stored in the database.",
        discussion: """
            One row per stored (name, version): where it came from (local or a signed manifest), \
            whether it is deprecated or retired, when it was stored, the first bytes of its SHA-256 and how \
            many unfinished instances run on it (a version stays stored while any does). `start` without \
            a version uses the version marked "latest": the highest one neither deprecated nor retired. \
            Exit status: 0 listed, 2 unusable input.
            """
    )

    @Option(help: ArgumentHelp("Only versions of this sequence name.", valueName: "name"))
    var name: String?

    @Flag(help: "Write JSON instead of a table.")
    var json = false

    @OptionGroup var database: DatabaseOptions

    public init() {}

    public func run() async throws {
        let output = await execute(style: .standardOutput, now: SystemClock().now())
        try output.finish()
    }

    /// One stored version and what the listing says of it.
    struct Row {
        let stored: StoredSequence
        let isLatest: Bool
        let unfinishedInstances: Int
    }

    /// Lists the versions; `now` (Unix ms) makes the "stored … ago" column.
    func execute(style: TerminalStyle = .plain, now: Int64) async -> CommandOutput {
        let opened: OpenedDatabase
        do {
            opened = try OpenedDatabase.open(database.db, mustExist: true, exclusive: false)
        } catch {
            return error.output
        }
        // A reader: another command's engine may own the file (it takes no lock, writes nothing).
        await opened.engine.serveReadsOnly()
        let rows: [Row]
        do {
            rows = try await Self.rows(on: opened.engine, name: name)
        } catch {
            await opened.close()
            return CommandFailure.engine(error).output
        }
        await opened.close()
        if json {
            let report: JSONValue = [
                "sequences": .array(
                    rows.map { row in
                        [
                            "name": .string(row.stored.key.name), "version": .integer(Int64(row.stored.key.version)),
                            "origin": .string(row.stored.origin), "deprecated": .bool(row.stored.isDeprecated),
                            "retired": .bool(row.stored.isRetired), "latest": .bool(row.isLatest),
                            "sha256": .string(row.stored.sha256), "installed_at": .integer(row.stored.installedAt),
                            "unfinished_instances": .integer(Int64(row.unfinishedInstances)),
                        ]
                    })
            ]
            return CommandOutput(standardOutput: JSONWriter.string(report, options: .prettyPrinted) + "\n")
        }
        guard !rows.isEmpty else {
            return CommandOutput(
                standardOutput: name != nil
                    ? "no stored versions of '\(name ?? "")'\n"
                    : "no sequences in \(database.db) yet; load one with `stepwise run FILE.json` or `stepwise sync`\n")
        }
        var table = [["NAME", "VERSION", "STATUS", "ORIGIN", "STORED", "SHA-256", "UNFINISHED"]]
        for row in rows {
            var status: [String] = []
            if row.isLatest { status.append("latest") }
            if row.stored.isDeprecated { status.append("deprecated") }
            if row.stored.isRetired { status.append("retired") }
            table.append([
                row.stored.key.name, String(row.stored.key.version), status.isEmpty ? "-" : status.joined(separator: ", "),
                row.stored.origin, DurationText.text(row.stored.installedAt, now) + " ago",
                String(row.stored.sha256.prefix(12)), String(row.unfinishedInstances),
            ])
        }
        let text = Table.render(table) { column, value in column == 2 && value.hasPrefix("latest") ? style.green(value) : value }
        return CommandOutput(standardOutput: text)
    }

    /// The stored versions (of `name` when given), by name then version, with the version
    /// `start` chooses and the unfinished instances each pins.
    ///
    /// - Throws: ``StepwiseError`` `storage` when the instances cannot be read.
    static func rows(on engine: StepwiseEngine, name: String?) async throws(StepwiseError) -> [Row] {
        let stored = await engine.loadedSequences().filter { name == nil || $0.key.name == name }
        var latest: [String: Int] = [:]
        for sequence in stored where !sequence.isDeprecated && !sequence.isRetired {
            latest[sequence.key.name] = max(latest[sequence.key.name] ?? Int.min, sequence.key.version)
        }
        var unfinished: [SequenceKey: Int] = [:]
        let states = Set(InstanceState.allCases.filter { !$0.isTerminal })
        for sequenceName in Set(stored.map(\.key.name)) {
            var cursor: String?
            repeat {
                let page = try await engine.instances(
                    filter: InstanceFilter(states: states, sequenceName: sequenceName), limit: 500, after: cursor)
                for item in page.items {
                    unfinished[SequenceKey(name: item.sequenceName, version: item.sequenceVersion), default: 0] += 1
                }
                cursor = page.nextCursor
            } while cursor != nil
        }
        return stored.map { Row(stored: $0, isLatest: latest[$0.key.name] == $0.key.version, unfinishedInstances: unfinished[$0.key] ?? 0) }
    }
}

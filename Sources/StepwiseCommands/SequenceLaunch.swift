import Stepwise

/// A sequence document read for `run` (or embedded, for `demo`).
struct SequenceSource: Sendable {
    /// How to name it in messages (a path).
    let label: String
    let bytes: [UInt8]

    /// Reads a file.
    ///
    /// - Throws: ``CommandFailure`` (exit 2) when it cannot be read.
    static func file(_ path: String) throws(CommandFailure) -> SequenceSource {
        do {
            return SequenceSource(label: path, bytes: try InputFiles.read(path))
        } catch {
            throw CommandFailure(error.message, exitCode: 2)
        }
    }

    /// The validated sequence.
    ///
    /// - Throws: ``CommandFailure`` (exit 2) listing every problem.
    func compiled() throws(CommandFailure) -> CompiledSequence {
        let result = SequenceLoader.load(bytes)
        guard let sequence = result.sequence else {
            let problems = result.problems.prefix(20).map { "  \($0)" }.joined(separator: "\n")
            throw CommandFailure(
                "\(label) is not a valid sequence (\(result.problems.count) problem\(result.problems.count == 1 ? "" : "s"))", exitCode: 2,
                hint: problems + "\nSee them all with `stepwise validate \(shellQuoted(label))`.")
        }
        return sequence
    }
}

/// Loads sequences into an engine, starts one instance and follows it to an end: the body of
/// `run` and `demo`.
struct SequenceLaunch {
    var sequence: SequenceSource
    /// Loaded first (sub_sequence targets).
    var extraSequences: [SequenceSource] = []
    var input = JSONObject()
    var setup = HandlerSetup()
    var answers: AnswerBook
    var databasePath: String
    var json = false
    var configuration = EngineConfiguration()
    /// The `--handlers` file given, repeated in the printed `resume` commands.
    var handlersFile: String?
    /// `start`'s dedup key (SEMANTICS §2.15): a live instance holding it is followed instead.
    var dedupKey: String?
    /// `start`'s options beyond the version (instance id, config).
    var startOptions = StartOptions()
    /// Lines printed once the instance is started (the demo's introduction).
    var introduction: [String] = []

    /// Runs it.
    ///
    /// - Parameters:
    ///   - console: where the timeline goes.
    ///   - input: typed answers and Ctrl-C.
    ///   - canAsk: whether to ask at the terminal for answers not given.
    func perform(console: RunConsole, input terminal: TerminalInput, canAsk: Bool) async -> CommandOutput {
        let compiled: CompiledSequence
        let extras: [CompiledSequence]
        do {
            compiled = try sequence.compiled()
            extras = try extraSequences.map { source throws(CommandFailure) in try source.compiled() }
        } catch {
            return error.output
        }
        for warning in answers.unmatchedWarnings(for: [compiled] + extras) { console.error(warning) }
        let database: OpenedDatabase
        do {
            database = try OpenedDatabase.open(
                databasePath, mustExist: false, exclusive: true, configuration: configuration)
        } catch {
            return error.output
        }
        let engine = database.engine
        let names = Set(compiled.handlerNames + extras.flatMap(\.handlerNames)).union(database.storedHandlerNames)
        let placeholders = await setup.register(on: engine, names: names)
        // The notice names this run's handlers only, not those of every sequence stored before.
        let ours = Set(compiled.handlerNames + extras.flatMap(\.handlerNames))
        if let notice = HandlerSetup.placeholderNotice(placeholders.filter { ours.contains($0) }) { console.error(notice) }
        let id: InstanceID
        do {
            id = try await loadAndStart(compiled, on: engine)
        } catch {
            await database.close()
            return error.output
        }
        for line in introduction { console.line(line) }
        console.line(
            console.style.bold("▶ \(compiled.name) v\(compiled.version)")
                + " · instance \(id) · database \(databasePath)")
        console.quitNotice = "continue with: stepwise resume \(id)\(DatabaseOptions.flag(for: databasePath))"
            + (handlersFile.map { " --handlers \(shellQuoted($0))" } ?? "")
        var session = RunSession(
            engine: engine, root: id, console: console, answers: answers, input: terminal, canAsk: canAsk,
            notes: setup.notes)
        let output: CommandOutput
        do {
            let outcome = try await session.drive()
            output = await RunConclusion.conclude(
                outcome, engine: engine, console: console, databaseFlag: DatabaseOptions.flag(for: databasePath),
                handlersFlag: handlersFile.map { " --handlers \(shellQuoted($0))" } ?? "", json: json)
        } catch {
            console.error("error: \(error.message)")
            output = console.output(exitCode: 2)
        }
        await database.close()
        return output
    }

    /// Loads the extra sequences and the sequence, then starts the instance on the file's version.
    private func loadAndStart(
        _ compiled: CompiledSequence, on engine: StepwiseEngine
    ) async throws(CommandFailure) -> InstanceID {
        for source in extraSequences + [sequence] {
            do {
                _ = try await engine.loadSequence(json: source.bytes)
            } catch {
                var failure = CommandFailure("\(source.label): \(error.message)", exitCode: 2)
                if error.code == .conflict {
                    failure.hint = "Give the changed document a new version, or use another --db PATH."
                }
                throw failure
            }
        }
        do {
            var options = startOptions
            options.version = compiled.version
            return try await engine.start(compiled.name, input: .object(input), dedupKey: dedupKey, options: options)
        } catch {
            var failure = CommandFailure(error.message, exitCode: 2)
            if error.code == .resourceLimit {
                failure.hint =
                    "Cancel unfinished instances (`stepwise instances --state waiting`, `stepwise cancel ID`) "
                    + "or use another --db PATH."
            }
            throw failure
        }
    }
}

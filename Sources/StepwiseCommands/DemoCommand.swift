public import ArgumentParser
import Foundation
import Stepwise

/// `stepwise demo`: runs the bundled onboarding example end to end on a temporary database,
/// with handlers that say what an app would do and scripted answers for its four prompts.
///
/// Exit status as for `run` (0 when the flow completes).
public struct DemoCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the bundled onboarding example end to end (scripted answers, temporary database).",
        discussion: """
            The orch8 mobile example's onboarding flow: ten steps, four of which wait for a person's answer, and two \
            routers that choose the path from the answers. The demo's handlers only say what an app would do. \
            --answer STEP=VALUE changes a scripted answer (e.g. show_terms=declined takes the other route); \
            --interactive asks at the terminal instead. The database is temporary unless --db PATH is given.
            """
    )

    /// The scripted answers, in the order the flow asks.
    static let scriptedAnswers: [(step: String, value: JSONValue)] = [
        ("show_terms", "accepted"), ("collect_preferences", ["news", "tech"]), ("setup_notifications", "enabled"),
        ("admin_approval", "approved"),
    ]

    @Option(
        name: .customLong("answer"),
        help: ArgumentHelp("Replace a scripted answer; VALUE is JSON or text. Repeatable.", valueName: "step=value"))
    var answers: [String] = []

    @Flag(help: "Ask at the terminal instead of using the scripted answers.")
    var interactive = false

    @Option(
        name: .long,
        help: ArgumentHelp("Keep the database at this path (default: a temporary file).", valueName: "path"))
    var db: String?

    public init() {}

    public func run() async throws {
        try await InteractiveRun.perform(json: false) { console, terminal, _ in
            await execute(console: console, input: terminal)
        }
    }

    /// Runs the demo; `handlerDelayMs` is how long each demo handler "works" (0 in tests).
    func execute(
        console: RunConsole, input terminal: TerminalInput, handlerDelayMs: Int64 = 120
    ) async -> CommandOutput {
        let book: AnswerBook
        do {
            let overrides = try AnswerBook.parse(answers)
            let steps = Set(answers.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
            var scripted: [(step: String, value: JSONValue)] =
                interactive ? [] : Self.scriptedAnswers.filter { !steps.contains($0.step) }
            for step in steps.sorted() { if let value = overrides.next(for: step) { scripted.append((step, value)) } }
            book = AnswerBook(source: interactive ? "--answer" : "the demo script", answers: scripted)
        } catch {
            return error.output
        }
        let temporary = db == nil
        let path =
            db
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("stepwise-demo-\(UUID().uuidString.prefix(8).lowercased()).db").path
        var setup = HandlerSetup()
        setup.custom = DemoHandlers.all(notes: setup.notes, delayMs: handlerDelayMs)
        let style = console.style
        let launch = SequenceLaunch(
            sequence: SequenceSource(label: DemoSequence.fixturePath, bytes: Array(DemoSequence.onboardingFlow.utf8)),
            setup: setup, answers: book, databasePath: path,
            introduction: [
                style.bold("Stepwise demo") + ": the orch8 onboarding example (\(DemoSequence.fixturePath))",
                "  Ten steps; four wait for a person's answer and two routers choose the path from the answers.",
                "  The handlers only say what an app would do (↳ lines); "
                    + (interactive
                        ? "you answer the prompts." : "the answers are scripted (--interactive to answer yourself)."),
                "  Database: \(path)" + (temporary ? " (deleted afterwards; --db PATH keeps one)" : ""),
                "",
            ])
        var output = await launch.perform(console: console, input: terminal, canAsk: interactive)
        if output.exitCode == 0 {
            console.line("")
            console.line(style.bold("What next"))
            console.line("  stepwise demo --answer show_terms=declined            take the other route")
            console.line("  stepwise demo --interactive                           answer the prompts yourself")
            console.line("  stepwise run \(DemoSequence.fixturePath)   run it on ./stepwise.db")
            console.line(
                "  stepwise instances · stepwise show ID                 inspect what ran (stepwise --help for all)")
            let rest = console.output(exitCode: 0)
            output.standardOutput += rest.standardOutput
            output.standardError += rest.standardError
        }
        let stopped =
            output.exitCode == RunConclusion.exitStoppedWaiting || output.exitCode == RunConclusion.exitInterrupted
        if temporary && !stopped {
            for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        return output
    }
}

/// The demo's handlers: each notes what an app would do and returns what the orch8 example
/// app's handler returns.
enum DemoHandlers {
    private struct Narrating: StepHandler {
        let notes: HandlerNotes
        let delayMs: Int64
        let narrate: @Sendable (JSONValue) -> (note: String, output: JSONValue)

        func execute(_ context: StepContext) async throws -> JSONValue {
            if delayMs > 0 { try await Task.sleep(for: .milliseconds(delayMs)) }
            let (note, output) = narrate(context.params)
            notes.add(note, for: context.idempotencyKey)
            return output
        }
    }

    /// Every handler the onboarding flow uses.
    static func all(notes: HandlerNotes, delayMs: Int64) -> [String: any StepHandler] {
        typealias Narration = @Sendable (JSONValue) -> (note: String, output: JSONValue)
        func handler(_ narrate: @escaping Narration) -> any StepHandler {
            Narrating(notes: notes, delayMs: delayMs, narrate: narrate)
        }
        return [
            "init_profile": handler { params in
                (
                    "would create the user's profile and open the '\(params["screen"]?.stringValue ?? "?")' screen",
                    ["status": "profile_initialized"]
                )
            },
            "validate_email": handler { _ in
                ("would check the e-mail address", ["valid": true, "email": "user@example.com"])
            },
            "show_terms": handler { params in
                ("would show the document '\(params["document"]?.stringValue ?? "?")'", ["shown": true])
            },
            "collect_preferences": handler { params in
                let categories =
                    params["categories"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""
                return ("would offer the categories \(categories)", ["collected": true])
            },
            "setup_notifications": handler { _ in
                ("would ask for permission to send notifications", ["configured": true])
            },
            "request_approval": handler { params in
                let reviewer = params["reviewer"]?.stringValue ?? "reviewer"
                let reason = params["reason"]?.stringValue ?? ""
                return ("would ask the \(reviewer) to approve (\(reason))", ["requested": true])
            },
            "show_banner": handler { params in
                let style = params["style"]?.stringValue ?? "info"
                let title = params["title"]?.stringValue ?? ""
                let message = params["message"]?.stringValue ?? ""
                return ("would show a \(style) banner: \(title) — \(message)", ["shown": true])
            },
            "complete_onboarding": handler { _ in
                ("would mark onboarding as complete", ["completed": true])
            },
        ]
    }
}

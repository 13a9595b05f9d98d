import Foundation
import Stepwise
import Testing

/// The README's embedding example, compiled and run; a second test checks the README shows
/// exactly this code, so the two cannot drift apart.
@Suite("README example")
struct ReadmeExampleTests {
    @Test func theEmbeddingExampleRunsToCompletion() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-readme-\(UUID().uuidString).db").path
        let result = try await Self.readmeExample(databasePath: path)
        #expect(result.state == .completed)
        #expect(result.data["greet"]?["greeting"] == "Hello, Ada!")
        #expect(result.data["confirm"] == "yes")
    }

    @Test func theREADMEShowsExactlyTheTestedCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(Self.swiftBlocks(in: readme).first { $0.contains("StepwiseEngine(databasePath:") })
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        #expect(block == Self.markedCode(in: source))
    }

    /// The fenced ```swift blocks of a Markdown text.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The lines between the `README-BEGIN` and `README-END` markers, without their common indentation.
    static func markedCode(in source: String) -> String {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard let begin = lines.firstIndex(where: { $0.hasSuffix("// README-BEGIN") }),
            let end = lines.firstIndex(where: { $0.hasSuffix("// README-END") })
        else { return "" }
        let body = lines[(begin + 1)..<end]
        let indent = body.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return body.map { $0.isEmpty ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }

    /// The README's example, verbatim between the markers.
    static func readmeExample(databasePath: String) async throws -> InstanceSnapshot {
        // README-BEGIN
        let engine = try StepwiseEngine(databasePath: databasePath)
        await engine.registerHandler("greet") { context in
            ["greeting": .string("Hello, \(context.data["name"]?.stringValue ?? "you")!")]
        }
        _ = try await engine.loadSequence(json: Array(#"""
            {"name": "welcome", "version": 1, "blocks": [
              {"type": "step", "id": "greet", "handler": "greet"},
              {"type": "step", "id": "confirm", "handler": "noop",
               "wait_for_input": {"prompt": "Continue?", "choices": [{"label": "Yes", "value": "yes"}]}}
            ]}
            """#.utf8))

        // A UI would ask the person; this listener picks the first choice.
        struct FirstChoice: EngineListener {
            let engine: StepwiseEngine
            func onStepPending(_ step: PendingStep) async {
                let value = step.choices?.first?.value ?? "ok"
                try? await engine.completeStep(instanceId: step.instanceId, stepId: step.stepId, output: ["value": .string(value)])
            }
        }
        await engine.setListener(FirstChoice(engine: engine))

        let id = try await engine.start("welcome", input: ["name": "Ada"])
        await engine.resume()
        while try await !engine.instance(id).state.isTerminal { try await Task.sleep(for: .milliseconds(10)) }
        let result = try await engine.instance(id)
        print(result.state, JSONWriter.string(.object(result.data)))
        // completed {"name":"Ada","greet":{"greeting":"Hello, Ada!"},"confirm":"yes"}
        await engine.shutdown()
        // README-END
        return result
    }
}

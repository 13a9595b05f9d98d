import ArgumentParser
import Foundation
import Stepwise
@testable import StepwiseCommands
import Testing

@Suite("stepwise demo")
struct DemoCommandTests {
    @Test func theEmbeddedSequenceIsTheFixture() throws {
        let path = CLIWorkspace.packageRoot() + "/" + DemoSequence.fixturePath
        let fixture = try JSONParser.parse([UInt8](try #require(FileManager.default.contents(atPath: path))))
        #expect(try JSONParser.parse(DemoSequence.onboardingFlow) == fixture)
    }

    @Test func theDemoRunsTheOnboardingFlowToCompletion() async throws {
        let output = try await DemoCommand.parse([]).execute(console: .collecting(), input: .scripted([]), handlerDelayMs: 0)
        #expect(output.exitCode == 0, "\(output.standardOutput)\(output.standardError)")
        let text = output.standardOutput
        #expect(text.contains("Stepwise demo"))
        #expect(text.contains("waits for input: Please review and accept the Terms of Service to continue."))
        #expect(text.contains("1) Accept → accepted"))
        #expect(text.contains("↳ answer from the demo script: \"accepted\""))
        #expect(text.contains(#"↳ answer from the demo script: ["news","tech"]"#))
        #expect(text.contains("↳ would show a success banner: Welcome!"))
        #expect(text.contains("✓ complete_onboarding"))
        #expect(text.contains("✓ completed"))
        #expect(text.contains("What next"))
        #expect(output.standardError.isEmpty)
    }

    @Test func anAnswerOverrideTakesTheOtherRoute() async throws {
        let output = try await DemoCommand.parse(["--answer", "show_terms=declined"])
            .execute(console: .collecting(), input: .scripted([]), handlerDelayMs: 0)
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("↳ would show a warning banner: Terms Required"))
        #expect(!output.standardOutput.contains("admin_approval"))
    }

    @Test func withDbTheDatabaseIsKept() async throws {
        let workspace = try CLIWorkspace()
        let output = try await DemoCommand.parse(["--db", workspace.database])
            .execute(console: .collecting(), input: .scripted([]), handlerDelayMs: 0)
        #expect(output.exitCode == 0)
        let instances = try await InstancesCommand.parse(["--json", "--db", workspace.database]).execute(now: 0)
        #expect(try JSONParser.parse(instances.standardOutput)["instances"]?[0]?["state"] == "completed")
    }
}

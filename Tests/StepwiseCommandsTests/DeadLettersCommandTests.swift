import ArgumentParser
import Stepwise
@testable import StepwiseCommands
import Testing

@Suite("stepwise dead-letters")
struct DeadLettersCommandTests {
    private func deadLetters(_ arguments: [String], in workspace: CLIWorkspace) async throws -> CommandOutput {
        try await DeadLettersCommand.parse(arguments + ["--db", workspace.database]).execute(now: SystemClock().now())
    }

    @Test func aFailedRunLeavesADeadLetterThatCanBeAcknowledgedRedrivenAndPurged() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.failing, to: "failing.json")
        let id = try #require(CLIWorkspace.instanceID(in: try await workspace.run([file]).standardOutput))

        let listed = try await deadLetters([], in: workspace)
        #expect(listed.exitCode == 0)
        #expect(listed.standardOutput.contains(id))
        #expect(listed.standardOutput.contains("failing v1"))
        #expect(listed.standardOutput.contains("charge"))
        #expect(listed.standardOutput.contains("└ step 'charge' failed: card declined"))

        let json = try JSONParser.parse(try await deadLetters(["--json"], in: workspace).standardOutput)
        let letter = try #require(json["dead_letters"]?[0])
        #expect(letter["instance_id"] == .string(id))
        #expect(letter["block_id"] == "charge")
        #expect(letter["handler"] == "fail")
        #expect(letter["acknowledged"] == false)

        let acknowledged = try await deadLetters(["--ack", String(id.prefix(8))], in: workspace)
        #expect(acknowledged.exitCode == 0, "\(acknowledged.standardError)")
        #expect(acknowledged.standardOutput.contains("acknowledged: dead letter"))
        #expect(try await deadLetters(["--unacknowledged"], in: workspace).standardOutput == "no unacknowledged dead letters\n")

        let redriven = try await deadLetters(["--redrive", id], in: workspace)
        #expect(redriven.exitCode == 0, "\(redriven.standardError)")
        #expect(redriven.standardOutput.contains("redriven: instance \(id) is scheduled again from block 'charge'"))
        #expect(redriven.standardOutput.contains("stepwise resume \(id)"))
        let again = try await workspace.resume([id])
        #expect(again.exitCode == 1)
        #expect(again.standardOutput.contains("attempt 2: card declined"))

        let purged = try await deadLetters(["--purge", "--include-unacknowledged"], in: workspace)
        #expect(purged.standardOutput == "purged 2 dead letters\n")
        #expect(try await deadLetters([], in: workspace).standardOutput == "no dead letters\n")
    }

    @Test func unknownRecordsAndBadOptionsAreRefused() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.failing, to: "failing.json")
        _ = try await workspace.run([file])
        let unknown = try await deadLetters(["--ack", "ffffffff"], in: workspace)
        #expect(unknown.exitCode == 1)
        #expect(unknown.standardError.contains("no dead letter matches 'ffffffff'"))
        #expect(throws: (any Error).self) { try DeadLettersCommand.parse(["--ack", "a", "--purge"]) }
        #expect(throws: (any Error).self) { try DeadLettersCommand.parse(["--purge", "--older-than", "soon"]) }
        // Past the range of a timestamp: refused, not a trap.
        #expect(throws: (any Error).self) { try DeadLettersCommand.parse(["--purge", "--older-than", "9999999999999d"]) }
        #expect(throws: (any Error).self) { try DeadLettersCommand.parse(["--purge", "--after", "x"]) }
        let badCursor = try await deadLetters(["--after", "nope"], in: workspace)
        #expect(badCursor.exitCode == 2)
        #expect(badCursor.standardError.contains("cursor 'nope' does not name a dead letter"))
        #expect(DeadLettersCommand.milliseconds("7d") == 604_800_000)
        #expect(DeadLettersCommand.milliseconds("90s") == 90_000)
    }

    @Test func aLongListingContinuesWithTheCursorItPrints() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.failing, to: "failing.json")
        var ids: Set<String> = []
        for _ in 0..<3 { ids.insert(try #require(CLIWorkspace.instanceID(in: try await workspace.run([file]).standardOutput))) }

        let first = try await deadLetters(["--limit", "2"], in: workspace)
        let more = try #require(first.standardOutput.split(separator: "\n").first { $0.hasPrefix("… more: ") })
        #expect(more.contains("stepwise dead-letters --limit 2 --after "))
        let cursor = try #require(more.split(separator: " ").drop { $0 != "--after" }.dropFirst().first)
        let json = try JSONParser.parse(try await deadLetters(["--limit", "2", "--json"], in: workspace).standardOutput)
        #expect(json["has_more"] == true)
        #expect(json["next_cursor"] == .string(String(cursor)))

        let rest = try await deadLetters(["--limit", "2", "--after", String(cursor)], in: workspace)
        #expect(rest.exitCode == 0, "\(rest.standardError)")
        #expect(!rest.standardOutput.contains("… more"))
        let seen = ids.filter { first.standardOutput.contains($0) || rest.standardOutput.contains($0) }
        #expect(seen == ids)
        #expect(ids.filter { rest.standardOutput.contains($0) }.count == 1)
    }
}

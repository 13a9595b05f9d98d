import Foundation
import StepwiseTorture
import Testing

@Suite("Crash-point torture: SIGKILL at commit boundaries, statements and handlers")
struct TortureTests {
    @Test func twoHundredCrashPointsWithoutViolations() async throws {
        let executable = try stepwiseExecutablePath()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-torture-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try await TortureHarness(executable: executable, workDirectory: dir).run(maxPoints: 210)
        print(report.summary)
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(report.exercised.count >= 200, "only \(report.exercised.count) crash points were reached")
    }
}

public import Foundation

/// The `stepwise` executable built next to the test bundle, for tests that run it as a child
/// process (crash tests, a real sync server).
public enum StepwiseExecutable {
    /// Its location.
    ///
    /// - Throws: `CocoaError(.fileNoSuchFile)` when it was not built beside the tests.
    public static func url() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        for directory in candidates {
            var url = directory.appendingPathComponent("stepwise")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            url = directory.deletingLastPathComponent().appendingPathComponent("stepwise")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw CocoaError(.fileNoSuchFile)
    }
}

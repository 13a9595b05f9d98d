import Foundation

/// Files the benchmarks read, located relative to this source file so the benchmarks run from
/// any working directory.
enum Fixtures {
    /// The repository root: three levels above `Benchmarks/Sources/StepwiseBenchmarks/`.
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The bytes of `Fixtures/sequences/NAME`, falling back to the shared orch8 examples
    /// (`../shared/fixtures/orch8-examples/NAME`) which the repository copies byte for byte.
    static func sequence(_ name: String) throws -> [UInt8] {
        let candidates = [
            repositoryRoot.appendingPathComponent("Fixtures/sequences/\(name)"),
            repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/orch8-examples/\(name)"),
        ]
        for url in candidates {
            if let data = FileManager.default.contents(atPath: url.path) { return Array(data) }
        }
        throw FixtureError(description: "fixture \(name) not found at \(candidates.map(\.path))")
    }
}

/// A fixture file is missing.
struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

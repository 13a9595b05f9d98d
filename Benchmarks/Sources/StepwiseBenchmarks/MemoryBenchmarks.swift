import BenchmarkHarness
import Foundation
import Stepwise

/// Peak resident memory while loading a generated sequence of about 1 MiB, against decoding the
/// same bytes with `JSONSerialization`.
enum MemoryBenchmarks {
    static var all: [Benchmark] {
        var bytes: [UInt8] = []
        var data = Data()
        return [
            Benchmark(
                "memory/load-1mib-sequence",
                metric: .peakMemory,
                baseline: Baseline("JSONSerialization.jsonObject(with:)") {
                    blackHole(try JSONSerialization.jsonObject(with: data))
                },
                targets: [.peakMemoryAboveStart(atMost: 20 * 1024 * 1024)],
                setUp: {
                    bytes = SampleDocuments.oneMebibyteSequence
                    data = Data(bytes)
                }
            ) {
                let result = SequenceLoader.load(bytes)
                guard result.problems.isEmpty, result.sequence != nil else {
                    throw FixtureError(description: "generated sequence does not load: \(result.problems.prefix(3))")
                }
                blackHole(result)
            }
        ]
    }
}

import BenchmarkHarness
import Foundation
import Stepwise

/// Loading (decode, validate, compile) the onboarding-flow example, against decoding the same
/// bytes with `JSONSerialization` alone.
enum SequenceLoadBenchmarks {
    static let onboarding: Result<[UInt8], any Error> = Result { try Fixtures.sequence("onboarding-flow.json") }

    static var all: [Benchmark] {
        var bytes: [UInt8] = []
        var data = Data()
        return [
            Benchmark(
                "sequence/load-onboarding-flow",
                baseline: Baseline("JSONSerialization.jsonObject(with:) alone") {
                    blackHole(try JSONSerialization.jsonObject(with: data))
                },
                targets: [.fasterThanBaseline(atLeast: 1)],
                setUp: {
                    bytes = try onboarding.get()
                    data = Data(bytes)
                    let result = SequenceLoader.load(bytes)
                    guard result.problems.isEmpty else {
                        throw FixtureError(description: "onboarding-flow.json does not load: \(result.problems)")
                    }
                }
            ) {
                blackHole(SequenceLoader.load(bytes))
            }
        ]
    }
}

import BenchmarkHarness
import Foundation
import StepwiseJSON

/// Decoding and encoding the ~5 KB document with the Stepwise codec, against Foundation's
/// `JSONSerialization` on the same bytes and the same value.
enum JSONCodecBenchmarks {
    static let bytes = SampleDocuments.fiveKilobytes
    static let data = Data(bytes)
    static let value: JSONValue = (try? JSONParser.parse(bytes)) ?? .null
    nonisolated(unsafe) static let foundationObject: Any = (try? JSONSerialization.jsonObject(with: data)) ?? NSNull()

    static var all: [Benchmark] {
        [
            Benchmark(
                "json/decode-5k",
                baseline: Baseline("JSONSerialization.jsonObject(with:)") {
                    blackHole(try JSONSerialization.jsonObject(with: data))
                },
                targets: [.fasterThanBaseline(atLeast: 3)],
                setUp: {
                    guard value != .null else { throw FixtureError(description: "the 5 KB document does not parse") }
                    _ = data
                }
            ) {
                blackHole(try JSONParser.parse(bytes))
            },
            Benchmark(
                "json/encode-5k",
                baseline: Baseline("JSONSerialization.data(withJSONObject:)") {
                    blackHole(try JSONSerialization.data(withJSONObject: foundationObject))
                },
                targets: [.fasterThanBaseline(atLeast: 10)],
                setUp: {
                    guard value != .null else { throw FixtureError(description: "the 5 KB document does not parse") }
                    _ = foundationObject
                }
            ) {
                blackHole(JSONWriter.bytes(value))
            },
        ]
    }
}

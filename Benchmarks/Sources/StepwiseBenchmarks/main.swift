import BenchmarkHarness
import Foundation

// Areas append their benchmarks here; names are `area/what` so filters select an area.
let benchmarks: [Benchmark] =
    JSONCodecBenchmarks.all
    + SequenceLoadBenchmarks.all
    + ExpressionBenchmarks.all
    + MemoryBenchmarks.all

// The engine's macro benchmarks (whole async runs on a file database) run on their own:
// `stepwise-benchmarks engine`.
// The sync benchmarks (manifest verification, a channel round trip): `stepwise-benchmarks sync`.
if CommandLine.arguments.dropFirst().contains("sync") {
    SyncBenchmarks.printTable(try await SyncBenchmarks.run())
    exit(0)
}
if CommandLine.arguments.dropFirst().contains("engine") {
    EngineBenchmarks.printTable(try await EngineBenchmarks.run())
    exit(0)
}
exit(BenchmarkRunner(benchmarks: benchmarks).main())

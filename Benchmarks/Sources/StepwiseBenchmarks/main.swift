import BenchmarkHarness
import Foundation

// Areas append their benchmarks here; names are `area/what` so filters select an area.
let benchmarks: [Benchmark] =
    JSONCodecBenchmarks.all
    + SequenceLoadBenchmarks.all
    + ExpressionBenchmarks.all
    + MemoryBenchmarks.all

// The sync benchmarks (manifest verification, a channel round trip): `stepwise-benchmarks sync`.
if CommandLine.arguments.dropFirst().contains("sync") {
    SyncBenchmarks.printTable(try await SyncBenchmarks.run())
    exit(0)
}
// `stepwise-benchmarks engine-profile b|c [RUNS]` repeats one throughput figure alone, for a profiler.
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "engine-profile" {
    let runs = CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 5 : 5
    try await EngineBenchmarks.profile(instances: CommandLine.arguments[2] == "c" ? 100 : 1, runs: runs)
    exit(0)
}
// The engine's macro benchmarks (whole async runs on a file database) run on their own:
// `stepwise-benchmarks engine`.
if CommandLine.arguments.dropFirst().contains("engine") {
    EngineBenchmarks.printTable(try await EngineBenchmarks.run())
    exit(0)
}
exit(BenchmarkRunner(benchmarks: benchmarks).main())

import BenchmarkHarness
import Foundation
import Stepwise

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
// `stepwise-benchmarks baseline-profile [TRANSACTIONS]` runs the raw INSERT baseline (a) alone,
// for strace or a profiler, so its system calls can be compared with the engine's per step.
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "baseline-profile" {
    let count = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 3_000 : 3_000
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("baseline-\(UUID().uuidString).db").path
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    let elapsed = try SQLiteInsertBaseline.measure(path: path, durability: .normal, transactions: count, payloadSize: 64, warmUp: 0)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(String(format: "%.0f tx/s", Double(count) / seconds))
    exit(0)
}
// `stepwise-benchmarks engine-profile b|c|warm|warmc|warmf [RUNS] [shared_pool|engine_thread] [STEPS]` repeats one
// throughput figure alone, for a profiler (STEPS, 100 by default, makes each run longer; `warm`
// runs one instance after another on one open engine, `warmc` waves of 100, `warmf` as `warm` with
// synchronous=FULL).
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "engine-profile" {
    let runs = CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 5 : 5
    let mode = CommandLine.arguments.count > 4
        ? EngineConfiguration.HandlerExecution(rawValue: CommandLine.arguments[4]) ?? .sharedPool : .sharedPool
    let steps = CommandLine.arguments.count > 5 ? Int(CommandLine.arguments[5]) ?? 100 : 100
    let figure = CommandLine.arguments[2]
    try await EngineBenchmarks.profile(
        instances: figure.hasSuffix("c") ? 100 : 1, steps: steps, runs: runs, steady: figure.hasPrefix("warm"),
        durability: figure.hasSuffix("f") ? .full : .normal, handlerExecution: mode)
    exit(0)
}
// The engine's macro benchmarks (whole async runs on a file database) run on their own:
// `stepwise-benchmarks engine`.
if CommandLine.arguments.dropFirst().contains("engine") {
    EngineBenchmarks.printTable(try await EngineBenchmarks.run())
    exit(0)
}
exit(BenchmarkRunner(benchmarks: benchmarks).main())

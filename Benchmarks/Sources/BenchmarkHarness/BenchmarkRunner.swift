import Foundation

/// Runs benchmarks from the command line and prints a table or JSON.
///
/// ```
/// stepwise-benchmarks [FILTER...] [--json] [--time SECONDS] [--warm-up SECONDS] [--list]
/// ```
///
/// A benchmark runs when its name contains any `FILTER` (case-insensitive), or always without
/// filters. Every benchmark with a baseline measures it in the same run. Exit status 1 means
/// a benchmark failed to run (its body threw); missed targets never fail the run.
///
/// ```swift
/// exit(BenchmarkRunner(benchmarks: JSONBenchmarks.all + SequenceBenchmarks.all).main())
/// ```
public struct BenchmarkRunner {
    /// Every benchmark known to the executable, in the order they run.
    public var benchmarks: [Benchmark]

    /// Creates a runner.
    ///
    /// - Parameter benchmarks: the benchmarks, with unique names.
    public init(benchmarks: [Benchmark]) {
        self.benchmarks = benchmarks
    }

    /// Parses `arguments`, runs the selected benchmarks and prints the results.
    ///
    /// - Parameter arguments: the command line, program name first.
    /// - Returns: the exit status: 0, or 1 when a benchmark failed or the arguments are wrong.
    public func main(arguments: [String] = CommandLine.arguments) -> Int32 {
        var filters: [String] = []
        var json = false
        var measureSeconds = 1.0
        var warmUpSeconds = 0.3
        var list = false
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": json = true
            case "--list": list = true
            case "--time", "--warm-up":
                guard let text = rest.popFirst(), let seconds = Double(text), seconds > 0 else {
                    return usage("\(argument) needs a positive number of seconds")
                }
                if argument == "--time" { measureSeconds = seconds } else { warmUpSeconds = seconds }
            case "--memory-child":
                guard let name = rest.popFirst(), let side = rest.popFirst() else { return usage("bad --memory-child") }
                return memoryChild(name: name, baselineSide: side == "baseline")
            case "-h", "--help":
                print(Self.help)
                return 0
            default:
                if argument.hasPrefix("-") { return usage("unknown option \(argument)") }
                filters.append(argument.lowercased())
            }
        }
        let selected = benchmarks.filter { b in filters.isEmpty || filters.contains { b.name.lowercased().contains($0) } }
        if list {
            for b in selected { print(b.name + (b.baseline.map { "  (baseline: \($0.name))" } ?? "")) }
            return 0
        }
        if selected.isEmpty { return usage("no benchmark matches \(filters.joined(separator: " "))") }

        let report = Report(json: json)
        report.header(measureSeconds: measureSeconds, warmUpSeconds: warmUpSeconds)
        let sampler = Sampler(warmUpSeconds: warmUpSeconds, measureSeconds: measureSeconds)
        var results: [BenchmarkResult] = []
        for benchmark in selected {
            report.starting(benchmark)
            let result = switch benchmark.metric {
            case .time: runTimed(benchmark, sampler: sampler)
            case .peakMemory: runMemory(benchmark)
            }
            report.print(result)
            results.append(result)
        }
        report.finish(results)
        return results.contains { $0.error != nil } ? 1 : 0
    }

    private func runTimed(_ benchmark: Benchmark, sampler: Sampler) -> BenchmarkResult {
        var result = emptyResult(benchmark)
        do {
            try benchmark.setUp()
            let (subject, baseline) = try sampler.measure(body: benchmark.body, baseline: benchmark.baseline?.body)
            result.time = subject
            result.baselineTime = baseline
            if let baseline { result.ratio = baseline.medianNanoseconds / subject.medianNanoseconds }
        } catch {
            result.error = "\(error)"
        }
        result.targets = outcomes(benchmark, result)
        return result
    }

    /// Runs each side three times, each in a fresh child process, and keeps the median run.
    private func runMemory(_ benchmark: Benchmark) -> BenchmarkResult {
        var result = emptyResult(benchmark)
        do {
            result.memory = try medianMemory(benchmark.name, baseline: false)
            if benchmark.baseline != nil {
                result.baselineMemory = try medianMemory(benchmark.name, baseline: true)
            }
            if let s = result.memory, let b = result.baselineMemory, s.peakAboveStartBytes > 0 {
                result.ratio = Double(b.peakAboveStartBytes) / Double(s.peakAboveStartBytes)
            }
        } catch {
            result.error = "\(error)"
        }
        result.targets = outcomes(benchmark, result)
        return result
    }

    private func medianMemory(_ name: String, baseline: Bool) throws -> MemoryFigures {
        var runs: [MemoryFigures] = []
        for _ in 0..<3 { runs.append(try spawnMemoryChild(name: name, baseline: baseline)) }
        return runs.sorted { $0.peakAboveStartBytes < $1.peakAboveStartBytes }[1]
    }

    private func spawnMemoryChild(name: String, baseline: Bool) throws -> MemoryFigures {
        #if os(Linux)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["--memory-child", name, baseline ? "baseline" : "subject"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self)
        let words = text.split(whereSeparator: \.isWhitespace)
        guard process.terminationStatus == 0, words.count == 3, words[0] == "MEMORY",
            let start = Int(words[1]), let peak = Int(words[2])
        else {
            throw HarnessError("memory child failed (status \(process.terminationStatus)): \(text)")
        }
        return MemoryFigures(startBytes: start, peakBytes: peak)
        #else
        throw HarnessError("peak memory is measured on Linux only (/proc/self/status)")
        #endif
    }

    /// In the child: set up, read the resident set, reset the peak, run one side once, print.
    private func memoryChild(name: String, baselineSide: Bool) -> Int32 {
        guard let benchmark = benchmarks.first(where: { $0.name == name }) else {
            print("ERROR no benchmark \(name)")
            return 1
        }
        do {
            try benchmark.setUp()
            let body = baselineSide ? benchmark.baseline?.body ?? {} : benchmark.body
            guard let start = ProcessMemory.residentBytes() else { throw HarnessError("no /proc/self/status") }
            ProcessMemory.resetPeak()
            try body()
            guard let peak = ProcessMemory.peakResidentBytes() else { throw HarnessError("no VmHWM") }
            print("MEMORY \(start) \(max(peak, start))")
            return 0
        } catch {
            print("ERROR \(error)")
            return 1
        }
    }

    private func emptyResult(_ benchmark: Benchmark) -> BenchmarkResult {
        BenchmarkResult(
            name: benchmark.name, metric: benchmark.metric, baselineName: benchmark.baseline?.name, targets: [])
    }

    private func outcomes(_ benchmark: Benchmark, _ result: BenchmarkResult) -> [BenchmarkResult.TargetOutcome] {
        benchmark.targets.map { target in
            let check = target.check(subject: result.time, baseline: result.baselineTime, memory: result.memory)
            return .init(target: target.description, met: check?.met, actual: check?.actual)
        }
    }

    private func usage(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("error: \(message)\n\n\(Self.help)\n".utf8))
        return 1
    }

    static let help = """
        USAGE: stepwise-benchmarks [FILTER...] [--json] [--time SECONDS] [--warm-up SECONDS] [--list]

          FILTER            run benchmarks whose name contains it (case-insensitive)
          --json            print results as JSON instead of a table
          --time SECONDS    measuring time per side of each benchmark (default 1)
          --warm-up SECONDS warm-up time per side (default 0.3)
          --list            list the benchmarks and their baselines
        """
}

/// A harness failure with a message.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

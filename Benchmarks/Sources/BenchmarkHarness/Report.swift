import Foundation

/// Prints results as a table (progress on standard error) or, with `--json`, one JSON array.
struct Report {
    var json: Bool

    private static let nameWidth = 58

    func header(measureSeconds: Double, warmUpSeconds: Double) {
        var lines = ["Stepwise benchmarks"]
        #if DEBUG
        lines.append("WARNING: debug build; figures are meaningless. Use `swift run -c release ...`.")
        #endif
        lines.append(
            "warm-up \(Format.fixed(warmUpSeconds, 1)) s, measuring \(Format.fixed(measureSeconds, 1)) s per side; "
                + "per-operation median and p90 over batch means; baselines interleaved in the same run")
        lines.append("targets are goals, not assertions: timings here swing 30-50 %")
        if json {
            for line in lines { log(line) }
        } else {
            Swift.print(lines.joined(separator: "\n"))
            Swift.print(
                "\n" + Format.pad("", Self.nameWidth) + Format.pad("median", 11, right: true)
                    + Format.pad("p90", 11, right: true) + Format.pad("ops/s", 12, right: true))
        }
    }

    func starting(_ benchmark: Benchmark) {
        log("running \(benchmark.name)…")
    }

    func print(_ result: BenchmarkResult) {
        guard !json else { return }
        var lines = ["", result.name]
        if let error = result.error { lines.append("  FAILED: \(error)") }
        if let t = result.time { lines.append(timeRow("stepwise", t)) }
        if let t = result.baselineTime { lines.append(timeRow("baseline: \(result.baselineName ?? "")", t)) }
        if let m = result.memory { lines.append(memoryRow("stepwise", m)) }
        if let m = result.baselineMemory { lines.append(memoryRow("baseline: \(result.baselineName ?? "")", m)) }
        if let ratio = result.ratio {
            let what = result.metric == .time ? Format.ratio(ratio) : Format.fixed(ratio, 2) + "x the baseline's peak"
            lines.append("  ratio: \(what)" + (result.metric == .time ? " than baseline" : ""))
        }
        for t in result.targets {
            let verdict = switch t.met {
            case true?: "met"
            case false?: "NOT MET"
            case nil: "n/a"
            }
            lines.append("  target \(t.target): \(verdict)" + (t.actual.map { " (\($0))" } ?? ""))
        }
        Swift.print(lines.joined(separator: "\n"))
    }

    func finish(_ results: [BenchmarkResult]) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            if let data = try? encoder.encode(results) {
                Swift.print(String(decoding: data, as: UTF8.self))
            }
        } else {
            let outcomes = results.flatMap(\.targets)
            let met = outcomes.filter { $0.met == true }.count
            let failed = results.filter { $0.error != nil }.count
            Swift.print("\n\(results.count) benchmarks, targets met: \(met) of \(outcomes.count)"
                + (failed > 0 ? ", \(failed) FAILED to run" : ""))
        }
    }

    private func timeRow(_ label: String, _ t: TimeFigures) -> String {
        "  " + Format.pad(label, Self.nameWidth - 2) + Format.pad(Format.time(t.medianNanoseconds), 11, right: true)
            + Format.pad(Format.time(t.p90Nanoseconds), 11, right: true)
            + Format.pad(Format.rate(t.opsPerSecond), 12, right: true)
    }

    private func memoryRow(_ label: String, _ m: MemoryFigures) -> String {
        "  " + Format.pad(label, Self.nameWidth - 2) + "peak +\(Format.bytes(m.peakAboveStartBytes)) over start "
            + "(start \(Format.bytes(m.startBytes)), peak \(Format.bytes(m.peakBytes)))"
    }

    private func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

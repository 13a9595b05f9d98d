public import StepwiseJSON

/// The outcome of one case.
public struct CaseOutcome: Sendable {
    /// The case's file, as given.
    public let file: String
    /// The case name.
    public let name: String
    /// `nil` when it passed, else what differed.
    public let failure: String?
    /// Whether it passed.
    public var passed: Bool { failure == nil }
    /// `PASS <file> :: <name>` or `FAIL <file> :: <name>: <what differed>`, one line (line
    /// breaks in the difference, such as a load error's problem list, become "; "; in the name
    /// they are shown as `\n`).
    public var line: String {
        // A name with a line break (JSON allows one) is shown escaped: one line per case.
        var shownName = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\n": shownName += "\\n"
            case "\r": shownName += "\\r"
            default: shownName.unicodeScalars.append(scalar)
            }
        }
        if let failure { return "FAIL \(file) :: \(shownName): \(failure.split(separator: "\n").joined(separator: "; "))" }
        return "PASS \(file) :: \(shownName)"
    }
}

/// A whole run: outcomes, unusable inputs and totals.
public struct ConformanceReport: Sendable {
    /// One outcome per case run, in file order.
    public var outcomes: [CaseOutcome] = []
    /// Files that could not be used.
    public var unusable: [ConformanceInputError] = []
    /// Cases not run because of `--filter`.
    public var skipped = 0

    /// Passed cases.
    public var passed: Int { outcomes.filter(\.passed).count }
    /// Failed cases.
    public var failed: Int { outcomes.count - passed }

    /// 0 when nothing failed, 1 when a case failed, 2 when an input was unusable (and nothing failed).
    public var exitCode: Int32 {
        if failed > 0 { return 1 }
        return unusable.isEmpty ? 0 : 2
    }

    /// `N passed, M failed` (and `, K skipped`).
    public var summaryLine: String {
        "\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : "")
    }

    /// The machine-readable report: one object per case plus totals.
    public var jsonValue: JSONValue {
        [
            "cases": .array(
                outcomes.map { o in
                    var c: JSONObject = [
                        "file": .string(o.file), "name": .string(o.name), "status": .string(o.passed ? "pass" : "fail"),
                    ]
                    if let f = o.failure { c["failure"] = .string(f) }
                    return .object(c)
                }),
            "unusable": .array(unusable.map { ["file": .string($0.file), "error": .string($0.message)] }),
            "passed": .integer(Int64(passed)), "failed": .integer(Int64(failed)), "skipped": .integer(Int64(skipped)),
        ]
    }
}

/// Runs conformance case files (CONFORMANCE.md): used by `stepwise conformance` and the tests.
public enum ConformanceRunner {
    /// Runs every case under `paths` whose name or file contains `filter`.
    ///
    /// - Parameter progress: called with each outcome as soon as it is known.
    /// - Returns: the report. Never throws: unusable files are reported and the rest still run.
    public static func run(
        paths: [String], filter: String? = nil, progress: @Sendable (CaseOutcome) -> Void = { _ in }
    ) async -> ConformanceReport {
        var report = ConformanceReport()
        let (files, missing) = ConformanceLoader.files(in: paths)
        report.unusable = missing
        for file in files {
            let cases: [ConformanceCase]
            do {
                let loaded = try ConformanceLoader.casesAndProblems(inFile: file)
                cases = loaded.cases
                report.unusable += loaded.problems
            } catch {
                report.unusable.append(error)
                continue
            }
            for c in cases {
                if let filter, !filter.isEmpty, !c.name.contains(filter), !c.file.contains(filter) {
                    report.skipped += 1
                    continue
                }
                let outcome = CaseOutcome(file: c.file, name: c.name, failure: await run(c))
                progress(outcome)
                report.outcomes.append(outcome)
            }
        }
        return report
    }

    /// Runs one case: `nil` when it passes, else what differed.
    public static func run(_ c: ConformanceCase) async -> String? {
        switch c.kind {
        case .expression(let e): ExpressionCaseRunner.run(e)
        case .sequence(let s): await SequenceCaseRunner(testCase: s).run()
        }
    }
}

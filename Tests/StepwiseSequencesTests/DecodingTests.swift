import Foundation
import StepwiseJSON
import StepwiseSequences
import Testing

@Suite("Decoding into the block AST: fields, defaults, aliases, durations, warnings")
struct DecodingTests {
    func only(_ blockJSON: String, extra: String = "") throws -> Block {
        let result = load(document(blockJSON, extra: extra))
        #expect(result.problems.isEmpty, "\(result.problems)")
        return try #require(result.sequence?.blocks.first)
    }

    @Test(arguments: [
        ("forEach", BlockType.forEach), ("tryCatch", .tryCatch), ("subSequence", .subSequence),
        ("abSplit", .abSplit), ("ab_split", .abSplit), ("cancellationScope", .cancellationScope),
    ])
    func aliasesSelectTheCanonicalType(tag: String, type: BlockType) {
        #expect(BlockType(tag: tag) == type)
    }

    @Test func stepDefaultsAndDurations() throws {
        let block = try only(step("a", #""timeout": 1.5, "delay": {"duration": 3000.0, "jitter": 20}"#))
        guard case .step(let s) = block.kind else { Issue.record("not a step"); return }
        #expect(s.timeoutMilliseconds == 1500)
        #expect(s.delay == StepDelay(durationMilliseconds: 3_000_000, jitterMilliseconds: 20))
        #expect(s.isCancellable)
        #expect(s.rawParams == .null)
        #expect(s.retry == nil && s.waitForInput == nil && s.runWhen == nil && s.when == nil)
    }

    /// The seconds as written, not their binary value: 1.001 is 1000.999… ms in binary.
    @Test(arguments: [
        ("1.001", Int64(1001)), ("2.01", 2010), ("32.3", 32300), ("0.0005", 0), ("0.001", 1), ("1e-05", 0),
        ("12345.6789", 12_345_678), ("5.0", 5000), ("1.5e3", 1_500_000),
    ])
    func floatSecondsAreReadAsWritten(text: String, milliseconds: Int64) throws {
        let block = try only(step("a", #""timeout": \#(text)"#))
        guard case .step(let s) = block.kind else { return }
        #expect(s.timeoutMilliseconds == milliseconds)
    }

    @Test func fractionalMillisecondsAreTruncated() throws {
        let block = try only(step("a", #""timeout": 0.0015"#))
        guard case .step(let s) = block.kind else { return }
        #expect(s.timeoutMilliseconds == 1)
    }

    @Test func retryPolicyAndWorkedBackoffExample() throws {
        let block = try only(step("a", #""retry": {"max_attempts": 5, "initial_backoff": 1000, "max_backoff": 5000, "non_retryable_codes": ["bad"]}"#))
        guard case .step(let s) = block.kind, let retry = s.retry else { Issue.record("no retry"); return }
        #expect(retry.backoffMultiplier == 2.0)
        #expect(retry.nonRetryableCodes == ["bad"])
        #expect((1...5).map { retry.backoffMilliseconds(beforeRetry: $0) } == [1000, 2000, 4000, 5000, 5000])
    }

    /// §2.6's product in decimal, as an author computes it: 1000 × 1.4² is 1960, not the
    /// 1959.9999999999998 of binary floating point; a fraction of a millisecond is truncated.
    @Test func fractionalMultipliersGiveTheDecimalProduct() {
        func backoffs(_ initial: Int64, _ multiplier: Double, _ count: Int) -> [Int64] {
            let policy = RetryPolicy(
                maxAttempts: count + 1, initialBackoffMilliseconds: initial, maxBackoffMilliseconds: 1 << 40,
                backoffMultiplier: multiplier)
            return (1...count).map { policy.backoffMilliseconds(beforeRetry: $0) }
        }
        #expect(backoffs(1000, 1.4, 3) == [1000, 1400, 1960])
        #expect(backoffs(100, 1.15, 2) == [100, 115])
        #expect(backoffs(100, 0.7, 3) == [100, 70, 49])
        #expect(backoffs(100, 1.5, 4) == [100, 150, 225, 337])
    }

    @Test func waitForInputChoicesDefaultLabels() throws {
        let block = try only(step("a", #""wait_for_input": {"choices": [{"value": "yes"}, {"label": "No!", "value": "no"}], "store_as": "d"}"#))
        guard case .step(let s) = block.kind, let wait = s.waitForInput else { Issue.record("no wait"); return }
        #expect(wait.prompt == "")
        #expect(wait.choices == [.init(label: "yes", value: "yes"), .init(label: "No!", value: "no")])
        #expect(wait.storeAs == "d")
    }

    @Test func runWhenConditions() throws {
        let block = try only(step("a", #""run_when": {"network": "unmetered", "charging": true}"#))
        guard case .step(let s) = block.kind else { return }
        #expect(s.runWhen == RunWhen(network: .unmetered, charging: true, batteryNotLow: nil))
    }

    @Test func compositeDefaults() throws {
        let loop = try only(#"{"type": "loop", "id": "l", "condition": "true", "body": [\#(step("a"))]}"#)
        guard case .loop(let l) = loop.kind else { Issue.record("not a loop"); return }
        #expect(l.maxIterations == 1000 && !l.continueOnError && l.breakOn == nil && l.pollIntervalSeconds == nil)

        let each = try only(#"{"type": "forEach", "id": "f", "collection": "context.data.orders.0.items", "body": [\#(step("a"))]}"#)
        guard case .forEach(let f) = each.kind, case .path(let path) = f.collection else { Issue.record("not a path"); return }
        #expect(path == ["orders", "0", "items"])
        #expect(f.itemVariable == "item" && f.indexVariable == nil && f.maxConcurrency == 1 && f.maxIterations == 1000)

        let race = try only(#"{"type": "race", "id": "r", "branches": [[], [\#(step("a"))]]}"#)
        guard case .race(let r) = race.kind else { return }
        #expect(r.semantics == .firstToResolve && r.branches.count == 2 && r.branches[0].isEmpty)

        let tc = try only(#"{"type": "try_catch", "id": "t", "try_block": [\#(step("a"))]}"#)
        guard case .tryCatch(let t) = tc.kind else { return }
        #expect(t.catchBlocks == nil && t.finallyBlocks == nil)

        let sub = try only(#"{"type": "sub_sequence", "id": "s", "sequence_name": "child"}"#)
        guard case .subSequence(let ss) = sub.kind else { return }
        #expect(ss.version == nil && ss.sequenceName == "child")
    }

    @Test func envelopeIsPreservedAndSourceBytesKept() throws {
        let text = document(step("a"), extra: #", "id": "x", "tenant_id": "mobile", "namespace": "default", "created_at": "2026-01-01T00:00:00Z", "deprecated": true"#)
        let result = load(text)
        let sequence = try #require(result.sequence)
        #expect(sequence.name == "t" && sequence.version == 1 && sequence.isDeprecated)
        #expect(sequence.envelope["tenant_id"] == "mobile")
        #expect(sequence.envelope["created_at"] == "2026-01-01T00:00:00Z")
        #expect(sequence.sourceBytes == Array(text.utf8))
        #expect(result.warnings.isEmpty)
    }

    @Test func unknownAndIgnoredFieldsAreWarningsNotErrors() throws {
        let result = load(document(step("a", #""queue_name": "q", "colour": "red""#), extra: #", "sla": {}, "extra": 1"#))
        #expect(result.isValid)
        let warnings = Set(result.warnings.map { "\($0.pointer) \($0.code)" })
        #expect(warnings == ["/blocks/0/queue_name ignored_field", "/blocks/0/colour unknown_field", "/sla ignored_field", "/extra unknown_field"])
    }

    /// SEMANTICS §1.5: `retain_iterations` (loop, for_each) is accepted and ignored, and §1.6
    /// warns of ignored fields.
    @Test func retainIterationsIsAnIgnoredFieldOnLoopsAndForEaches() throws {
        let result = load(document(
            #"{"type": "loop", "id": "l", "condition": "false", "retain_iterations": 3, "body": [\#(step("a"))]}, {"type": "for_each", "id": "f", "collection": "xs", "retain_iterations": 3, "body": [\#(step("b"))]}"#))
        #expect(result.isValid)
        let warnings = result.warnings.map { "\($0.pointer) \($0.code)" }
        #expect(warnings == ["/blocks/0/retain_iterations ignored_field", "/blocks/1/retain_iterations ignored_field"])
    }

    /// Distinct JSON strings are distinct ids and choice values, even canonically equivalent
    /// ones (é composed and decomposed), which Swift's `String ==` takes as equal.
    @Test func canonicallyEquivalentIdsAndChoicesAreDistinct() throws {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        let result = load(document(
            #"{"type": "step", "id": "\#(composed)", "handler": "h", "wait_for_input": {"choices": [{"value": "\#(composed)"}, {"value": "\#(decomposed)"}]}}, {"type": "step", "id": "\#(decomposed)", "handler": "h"}"#))
        #expect(result.isValid, "\(result.problems)")
    }

    @Test func suspiciousCollectionPathAndZeroWeightWarn() {
        let result = load(document(#"{"type": "for_each", "id": "f", "collection": "outputs.fetch.items", "body": [\#(step("a"))]}, {"type": "a_b_split", "id": "x", "variants": [{"name": "a", "weight": 0, "blocks": []}, {"name": "b", "weight": 1, "blocks": []}]}"#))
        #expect(result.isValid)
        #expect(result.warnings.map(\.code) == [.suspiciousCollection, .zeroWeight])
    }

    @Test func aSubSequenceInputThatIsNotAnObjectWarnsAndLoads() {
        // §2.8: it "must be an object (else the node fails)": a run-time failure, announced at load.
        let result = load(document(#"{"type": "sub_sequence", "id": "s", "sequence_name": "c", "input": [1]}"#))
        #expect(result.isValid)
        #expect(result.warnings.map { "\($0.pointer) \($0.code)" } == ["/blocks/0/input invalid_sub_sequence"])
        #expect(result.warnings.first?.message.contains("must be an object, got array") == true)
    }

    @Test func handlerNamesIncludeEscalationHandlersAndHooks() throws {
        let result = load(document(step("a", #""wait_for_input": {"escalation_handler": "esc"}"#), extra: #", "on_failure": [{"type": "step", "id": "z", "handler": "alert"}]"#))
        #expect(result.sequence?.handlerNames == ["alert", "esc", "h"])
    }

    @Test(arguments: ["onboarding-flow.json", "payment-verification.json", "feature-access.json"])
    func orch8ExamplesLoad(file: String) throws {
        let url = packageRoot().appendingPathComponent("Fixtures/sequences/\(file)")
        let bytes = try [UInt8](contentsOfFile: url)
        let result = SequenceLoader.load(bytes)
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(result.sequence?.blockCount ?? 0 >= 11)
    }
}

import FuzzSupport
import Stepwise

/// Fuzzes `SequenceLoader.load` (decoding, validation, expression and template compilation).
///
/// Each input is loaded twice: with the default limits, and with tiny ones so that fuzzer-sized
/// inputs reach the size, depth, block-count and branch limits. Invariants: a result is valid
/// exactly when it has no problem; every problem and warning has a known code and a bounded
/// message; a valid sequence respects the limits it was loaded with; whatever loads under the
/// tiny limits loads under the defaults.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSequence(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let defaults = load(bytes, SequenceLimits())
    let tiny = load(
        bytes, SequenceLimits(maxDocumentBytes: 2_048, maxJSONDepth: 8, maxBlockDepth: 3, maxBlocks: 6, maxBranches: 2))
    if tiny.isValid {
        fuzzCheck(defaults.isValid, "valid under tiny limits but not under the defaults: \(defaults.problems)")
    }
    return 0
}

private let errorCodes: Set<String> = [
    "invalid_json", "too_deep_json", "too_large", "missing_field", "wrong_type", "unknown_type", "unsupported",
    "empty_blocks", "empty_id", "duplicate_id", "empty_handler", "invalid_retry", "invalid_duration",
    "invalid_choices", "invalid_store_as", "no_branches", "too_many_branches", "invalid_loop", "invalid_for_each",
    "invalid_router", "invalid_try_catch", "invalid_sub_sequence", "invalid_ab_split", "invalid_scope",
    "expression", "template", "too_deep", "too_many_blocks",
]

private let warningCodes: Set<String> = [
    "unknown_field", "ignored_field", "suspicious_collection", "nondeterministic_condition", "zero_weight",
    "template", "expression",
    // A literal non-object sub_sequence input: it fails the node when it runs (SEMANTICS §2.8).
    "invalid_sub_sequence",
]

private func load(_ bytes: [UInt8], _ limits: SequenceLimits) -> LoadResult {
    let result = SequenceLoader.load(bytes, limits: limits)
    fuzzCheck(result.isValid == result.problems.isEmpty, "isValid disagrees with problems")
    fuzzCheck((result.sequence != nil) == result.isValid, "a sequence comes with problems, or none without")
    for problem in result.problems {
        fuzzCheck(errorCodes.contains(problem.code.rawValue), "unknown problem code \(problem.code)")
        checkMessage(problem.message, "problem \(problem.code)")
    }
    for warning in result.warnings {
        fuzzCheck(warningCodes.contains(warning.code.rawValue), "unknown warning code \(warning.code)")
        checkMessage(warning.message, "warning \(warning.code)")
    }
    do {
        let sequence = try result.get()
        fuzzCheck(bytes.count <= limits.maxDocumentBytes, "accepted \(bytes.count) bytes over the size limit")
        fuzzCheck(sequence.name.contains { !$0.isWhitespace }, "accepted a blank name")
        fuzzCheck(sequence.version >= 0 && sequence.version <= Int(Int32.max), "accepted version \(sequence.version)")
        fuzzCheck(sequence.blockCount <= limits.maxBlocks, "accepted \(sequence.blockCount) blocks")
        fuzzCheck(!sequence.blocks.isEmpty, "accepted an empty blocks list")
        fuzzCheck(sequence.sourceBytes == bytes, "the sequence does not keep its source bytes")
    } catch {
        fuzzCheck(!result.isValid, "get() threw for a valid result")
        fuzzCheck(error.problems == result.problems, "the error does not carry every problem")
        fuzzCheck(error.description.hasPrefix("sequence is invalid ("), "SequenceInvalidError description")
    }
    return result
}

/// Invariant checks for fuzz targets.
///
/// A failed check stops the process with a message; libFuzzer records the input that caused it
/// as a crash (`crash-<sha1>` in the artifact folder), exactly as it does for a trap inside the
/// code under test.
///
/// ```swift
/// fuzzCheck(error.offset <= bytes.count, "offset \(error.offset) past the end")
/// ```
public func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fuzzFailure(message(), file: file, line: line) }
}

/// Stops the process: the current input broke an invariant.
public func fuzzFailure(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("fuzz invariant violated: \(message)", file: file, line: line)
}

/// The bytes libFuzzer hands to `LLVMFuzzerTestOneInput`, copied into an array.
///
/// - Parameters:
///   - data: libFuzzer's buffer; `nil` only for the empty input on some platforms.
///   - size: its length.
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// The longest error message a parser may produce for a fuzzer-sized input (libFuzzer's inputs
/// are at most a few KiB), so an error can never echo an unbounded amount of hostile input.
public let maximumMessageBytes = 64 * 1024

/// Checks that an error message is non-empty and bounded.
public func checkMessage(_ message: String, _ what: String, file: StaticString = #fileID, line: UInt = #line) {
    fuzzCheck(!message.isEmpty, "\(what): empty error message", file: file, line: line)
    fuzzCheck(
        message.utf8.count <= maximumMessageBytes, "\(what): error message of \(message.utf8.count) bytes",
        file: file, line: line)
}

import Foundation

/// Runs parser work on its own thread with a small stack and a deadline.
///
/// The stack is 1 MiB: an eighth of a main thread's, twice an iOS secondary thread's (whose
/// 512 KiB the optimised build fits in; unoptimised test builds use larger frames). Recursion
/// that grows with the input overflows it long before a hostile input runs out, which crashes
/// the test process: exactly the failure the corpus is meant to expose.
enum Bounded {
    /// `STEPWISE_HOSTILE_STACK_BYTES` overrides it for sanitizer runs, whose instrumented frames
    /// are several times larger.
    static let stackSize = ProcessInfo.processInfo.environment["STEPWISE_HOSTILE_STACK_BYTES"].flatMap(Int.init) ?? 1 << 20

    /// The result of `body`, with the time it took; `nil` when it did not finish within
    /// `seconds` (the thread is then abandoned: it cannot be stopped).
    static func run<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () -> T) -> (value: T, seconds: Double)? {
        let box = ResultBox<T>()
        let thread = Thread {
            let clock = ContinuousClock()
            let start = clock.now
            let value = body()
            let elapsed = clock.now - start
            box.finish(value, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        thread.stackSize = stackSize
        thread.start()
        guard box.done.wait(timeout: .now() + seconds) == .success else { return nil }
        return box.result
    }
}

/// Hands a result from the worker thread to the waiting test.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // Written once by the worker before `done` is signalled, read after the wait succeeds.
    private(set) var result: (value: T, seconds: Double)?
    let done = DispatchSemaphore(value: 0)

    func finish(_ value: T, _ seconds: Double) {
        result = (value, seconds)
        done.signal()
    }
}

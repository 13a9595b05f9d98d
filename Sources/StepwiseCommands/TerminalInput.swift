import Foundation
import Synchronization

/// Answers typed by a person, and the Ctrl-C that stops a run, as one stream of events.
///
/// A real run reads standard input on a thread of its own (started at the first request) and
/// pushes SIGINT in from a signal source; tests script the lines and call ``interrupt()``.
final class TerminalInput: Sendable {
    /// What the next request for a line returns.
    enum Event: Sendable, Equatable {
        /// A line, without its newline.
        case line(String)
        /// Standard input ended (or the scripted lines ran out).
        case endOfInput
        /// Ctrl-C.
        case interrupted
    }

    private struct State {
        var buffered: [Event] = []
        var waiter: CheckedContinuation<Event, Never>?
        var isReaderStarted = false
        var isInterrupted = false
        var interruptCount = 0
        var interruptActions: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    private let readsStandardInput: Bool

    private init(readsStandardInput: Bool, lines: [String]) {
        self.readsStandardInput = readsStandardInput
        if !readsStandardInput {
            state.withLock { $0.buffered = lines.map(Event.line) + [.endOfInput] }
        }
    }

    /// Lines typed at the terminal.
    static func standardInput() -> TerminalInput { TerminalInput(readsStandardInput: true, lines: []) }

    /// Scripted lines, then end of input.
    static func scripted(_ lines: [String]) -> TerminalInput { TerminalInput(readsStandardInput: false, lines: lines) }

    /// Whether Ctrl-C was pressed.
    var isInterrupted: Bool { state.withLock { $0.isInterrupted } }

    /// Records Ctrl-C and wakes a pending read.
    ///
    /// - Returns: how many times it was pressed so far (a second press quits at once).
    @discardableResult
    func interrupt() -> Int {
        let (count, actions) = state.withLock { s -> (Int, [@Sendable () -> Void]) in
            s.isInterrupted = true
            s.interruptCount += 1
            defer { s.interruptActions = [] }
            return (s.interruptCount, s.interruptActions)
        }
        for action in actions { action() }
        push(.interrupted)
        return count
    }

    /// Runs `action` once, at the first Ctrl-C (at once when it was already pressed).
    ///
    /// A session uses it to stop dispatching the moment Ctrl-C comes rather than at its next
    /// poll, which a busy machine can delay past the end of a running handler.
    func whenInterrupted(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.isInterrupted { return true }
            s.interruptActions.append(action)
            return false
        }
        if runNow { action() }
    }

    /// The next line, end of input, or an interruption.
    func next() async -> Event {
        if isInterrupted { return .interrupted }
        startReaderIfNeeded()
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Event? in
                if !s.buffered.isEmpty { return s.buffered.removeFirst() }
                s.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func push(_ event: Event) {
        let waiter = state.withLock { s -> CheckedContinuation<Event, Never>? in
            if let waiter = s.waiter {
                s.waiter = nil
                return waiter
            }
            if event != .interrupted || !s.buffered.contains(.interrupted) { s.buffered.append(event) }
            return nil
        }
        waiter?.resume(returning: event)
    }

    private func startReaderIfNeeded() {
        guard readsStandardInput else { return }
        let start = state.withLock { s -> Bool in
            defer { s.isReaderStarted = true }
            return !s.isReaderStarted
        }
        guard start else { return }
        let thread = Thread { [self] in
            while let line = readLine(strippingNewline: true) { push(.line(line)) }
            push(.endOfInput)
        }
        thread.start()
    }
}

import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C for `run`, `resume` and `demo`: the first SIGINT asks the session to stop cleanly
/// (the engine shuts down, the instance id and the resume command are printed); a second one
/// quits at once, which loses nothing either (every transition is already committed).
final class InterruptSignal {
    private let source: any DispatchSourceSignal

    private init(source: any DispatchSourceSignal) { self.source = source }

    /// Routes SIGINT to `input` until ``remove()``.
    static func install(input: TerminalInput, console: RunConsole) -> InterruptSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            if input.interrupt() > 1 {
                // Every transition is committed: quitting loses nothing; say how to go on.
                let notice = console.quitNotice.map { "; \($0)" } ?? ""
                let text = "\nquit at once: nothing is lost\(notice)\n"
                _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
                _exit(130)
            }
            console.error("\nstopping… (waiting for running handlers; Ctrl-C again quits at once)")
        }
        source.resume()
        return InterruptSignal(source: source)
    }

    /// Restores the default SIGINT behaviour.
    func remove() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}

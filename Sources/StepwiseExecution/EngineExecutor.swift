import Foundation

/// The engine's own thread: the actor's serial executor, and the task executor its handler
/// calls and run loop prefer.
///
/// Why a thread of its own: SQLite's calls block (I/O, `busy_timeout`), and blocking the shared
/// cooperative pool stalls the host app's other tasks; and a step's hand-offs (the commit, the
/// handler call, its result, the next pass) stay on one thread instead of waking another
/// through a futex each time. The thread exits after a second without work and is started
/// again by the next job, so an idle engine holds no thread.
final class EngineExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var hasThread = false
    private var isSleeping = false
    /// The running worker, as `Thread.current` sees it there (for `checkIsolated`).
    private var worker: Thread?

    private static let idleSeconds: TimeInterval = 1

    init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        if !hasThread {
            hasThread = true
            let thread = Thread { [self] in drain() }
            thread.name = "stepwise.engine"
            thread.start()
        } else if isSleeping {
            condition.signal()
        }
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        condition.lock()
        let worker = self.worker
        condition.unlock()
        precondition(worker != nil && Thread.current === worker, "not on the engine's thread")
    }

    /// Runs jobs in arrival order until the queue stays empty for `idleSeconds`.
    private func drain() {
        var batch: [UnownedJob] = []
        condition.lock()
        worker = Thread.current
        while true {
            if jobs.isEmpty {
                isSleeping = true
                let signalled = condition.wait(until: Date(timeIntervalSinceNow: Self.idleSeconds))
                isSleeping = false
                if !signalled && jobs.isEmpty {
                    hasThread = false
                    worker = nil
                    condition.unlock()
                    return
                }
                continue
            }
            swap(&batch, &jobs)
            condition.unlock()
            let serial = asUnownedSerialExecutor()
            let task = asUnownedTaskExecutor()
            for job in batch { job.runSynchronously(isolatedTo: serial, taskExecutor: task) }
            batch.removeAll(keepingCapacity: true)
            condition.lock()
        }
    }
}

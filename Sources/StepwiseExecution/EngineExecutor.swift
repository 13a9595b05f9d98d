import Foundation
import Synchronization

/// The engine's own thread, as the actor's serial executor (``serial``) and as the task
/// executor its handler calls prefer (``task``).
///
/// Why a thread of its own: SQLite's calls block (I/O, `busy_timeout`), and blocking the shared
/// cooperative pool stalls the host app's other tasks; and a step's hand-offs (the commit, the
/// handler call, its result, the next pass) stay on one thread instead of waking another
/// through a futex each time. The thread exits after a second without work and is started
/// again by the next job, so an idle engine holds no thread.
///
/// Both roles feed one first-in, first-out queue; a job runs in the role it was enqueued for
/// (actor jobs isolated to the engine, task jobs as nonisolated code of their task).
final class EngineExecutor: Sendable {
    /// The engine actor's executor.
    let serial: SerialRole
    /// The executor handler calls prefer.
    let task: TaskRole

    init() {
        let queue = EngineJobQueue()
        serial = SerialRole(queue)
        task = TaskRole(queue)
    }

    /// The actor-facing role.
    final class SerialRole: SerialExecutor {
        private let queue: EngineJobQueue

        fileprivate init(_ queue: EngineJobQueue) { self.queue = queue }

        func enqueue(_ job: consuming ExecutorJob) {
            queue.enqueue(UnownedJob(job), as: .actor(asUnownedSerialExecutor()))
        }

        func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

        func checkIsolated() {
            precondition(queue.isCurrentThread, "not on the engine's thread")
        }
    }

    /// The task-facing role.
    final class TaskRole: TaskExecutor {
        private let queue: EngineJobQueue

        fileprivate init(_ queue: EngineJobQueue) { self.queue = queue }

        func enqueue(_ job: consuming ExecutorJob) {
            queue.enqueue(UnownedJob(job), as: .task(asUnownedTaskExecutor()))
        }
    }
}

/// The jobs of an ``EngineExecutor`` and the thread that runs them.
final class EngineJobQueue: @unchecked Sendable {
    /// How a job runs.
    enum Role {
        case actor(UnownedSerialExecutor)
        case task(UnownedTaskExecutor)
    }

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [(job: UnownedJob, role: Role)] = []
    private var hasThread = false
    private var isSleeping = false
    /// Jobs enqueued and not yet taken by the worker, readable without the lock (the spin).
    private let waiting = Atomic<Int>(0)
    /// The running worker, as `Thread.current` sees it there (for `checkIsolated`).
    private var worker: Thread?

    private static let idleSeconds: TimeInterval = 1
    /// How long the worker watches for a job before it sleeps. A handler's result typically
    /// comes back from another thread within tens of microseconds; waking a sleeping thread
    /// costs about as much again, twice per step.
    private static let spin: Duration = .microseconds(50)

    var isCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return worker != nil && Thread.current === worker
    }

    func enqueue(_ job: UnownedJob, as role: Role) {
        condition.lock()
        jobs.append((job, role))
        waiting.add(1, ordering: .releasing)
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

    /// Runs jobs in arrival order until the queue stays empty for `idleSeconds`.
    private func drain() {
        var batch: [(job: UnownedJob, role: Role)] = []
        condition.lock()
        worker = Thread.current
        while true {
            if jobs.isEmpty {
                condition.unlock()
                let until = ContinuousClock.now + Self.spin
                while waiting.load(ordering: .acquiring) == 0 && ContinuousClock.now < until {}
                condition.lock()
                if !jobs.isEmpty { continue }
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
            waiting.store(0, ordering: .relaxed)
            condition.unlock()
            for entry in batch {
                switch entry.role {
                case .actor(let executor): entry.job.runSynchronously(on: executor)
                case .task(let executor): entry.job.runSynchronously(on: executor)
                }
            }
            batch.removeAll(keepingCapacity: true)
            condition.lock()
        }
    }
}

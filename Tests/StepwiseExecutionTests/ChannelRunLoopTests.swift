import Foundation
import Stepwise
import Synchronization
import Testing

/// A sync channel whose round trips wait for ``gate``: due at once before the first, then 10 s
/// after the latest one started.
final class HeldChannel: SyncChannelDriver {
    private let state = Mutex<(started: [Int64], finished: Int, deadlines: [ContinuousClock.Instant?])>(([], 0, []))
    let gate = Gate()

    var started: Int { state.withLock { $0.started.count } }
    var finished: Int { state.withLock { $0.finished } }
    var deadlines: [ContinuousClock.Instant?] { state.withLock { $0.deadlines } }

    func nextDue(for engine: StepwiseEngine) async -> Int64? {
        state.withLock { $0.started.last.map { $0 + 10_000 } } ?? engine.now()
    }

    func roundTrip(for engine: StepwiseEngine, deadline: ContinuousClock.Instant?) async -> ChannelSyncResult {
        state.withLock {
            $0.started.append(engine.now())
            $0.deadlines.append(deadline)
        }
        await gate.wait()
        state.withLock { $0.finished += 1 }
        return ChannelSyncResult(requests: 1, httpStatus: 200, finishedAt: engine.now())
    }
}

/// SEMANTICS §6.4 ("handler results advance instances at once"), SYNC.md §2.10 ("the engine
/// keeps executing locally"): the run loop never waits for the server.
@Suite("The sync channel beside the run loop")
struct ChannelRunLoopTests {
    @Test func instancesRunWhileARoundTripIsOutAndItsEndSchedulesTheNext() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let clock = VirtualClock(start: 1_000_000)
        let engine = try await openEngine(db, clock: clock, handlers: ["work": { _ in [:] }])
        let twoSteps = #"{"name": "q", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "work"}, {"type": "step", "id": "t", "handler": "work"}]}"#
        _ = try await engine.loadSequence(json: Array(twoSteps.utf8))
        let channel = HeldChannel()
        await engine.setSyncChannel(channel)
        await engine.resume()
        #expect(await eventually { channel.gate.waiting }, "the loop starts the due round trip")

        // The server does not answer: the instance runs to its end all the same.
        let id = try await engine.start("q")
        #expect(await eventually { (try? await engine.instance(id).state) == .completed })
        #expect(channel.started == 1, "one round trip out at a time, though the channel says one is due")

        // When it ends, the loop schedules the next one (10 s after the first started).
        channel.gate.open()
        #expect(await eventually { channel.finished == 1 })
        clock.advance(to: 1_010_000)
        #expect(await eventually { channel.started == 2 })

        // The run loop's round trips run to their end; the final flush has a deadline.
        await engine.shutdown()
        #expect(channel.started == 3)
        #expect(channel.deadlines.prefix(2).allSatisfy { $0 == nil })
        #expect(channel.deadlines.last.flatMap { $0 } != nil)
    }

    /// The host's `syncChannel()` while the loop's round trip is out waits for it to end, so
    /// two requests never carry the same outbox rows.
    @Test func aHostRoundTripWaitsForTheLoopsToEnd() async throws {
        let db = TemporaryDatabase()
        defer { db.cleanup() }
        let engine = try await openEngine(db, clock: VirtualClock(start: 1_000_000))
        let channel = HeldChannel()
        await engine.setSyncChannel(channel)
        await engine.resume()
        #expect(await eventually { channel.gate.waiting })
        let host = Task { try await engine.syncChannel() }
        // The engine stays responsive meanwhile, and the host's round trip has not started.
        _ = try await engine.activeInstances()
        #expect(channel.started == 1)
        channel.gate.open()
        _ = try await host.value
        #expect(channel.started == 2 && channel.finished == 2)
        await engine.shutdown()
    }
}

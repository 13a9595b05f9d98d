import Foundation
import Stepwise
import Synchronization
import Testing

/// A sync server in memory whose answers come from a closure, which may act on the engine while
/// the request is out; records every request with the timeout it was given. Registration is
/// answered 201 at once.
final class ProgrammableTransport: SyncHTTPTransport {
    struct Request {
        let url: String
        let body: JSONValue
        let timeoutMs: UInt64
    }
    /// Answers the sync request `index` (0-based, registrations not counted).
    typealias Answer = @Sendable (_ index: Int, _ timeoutMs: UInt64) async throws -> (Int, JSONValue)

    static let plain: Answer = { _, _ in (200, ["sync_interval_secs": 30]) }

    private let requests = Mutex<[Request]>([])
    private let answerer = Mutex<Answer>(ProgrammableTransport.plain)

    func answer(with answer: @escaping Answer) { answerer.withLock { $0 = answer } }

    var syncRequests: [Request] { requests.withLock { $0.filter { !$0.url.hasSuffix("/register") } } }

    func post(_ url: URL, headers: [String: String], body: [UInt8], timeoutMs: UInt64) async throws -> (Int, [UInt8]) {
        let request = Request(url: url.absoluteString, body: (try? JSONParser.parse(body)) ?? .null, timeoutMs: timeoutMs)
        let index = requests.withLock { list -> Int in
            list.append(request)
            return list.filter { !$0.url.hasSuffix("/register") }.count - 1
        }
        if url.path.hasSuffix("/register") { return (201, Array("{}".utf8)) }
        let (status, json) = try await answerer.withLock { $0 }(index, timeoutMs)
        return (status, JSONWriter.bytes(json))
    }
}

/// An engine on a virtual clock with a channel over a ``ProgrammableTransport``, and a sequence
/// whose instances wait for input (a status row and an approval row each).
struct ChannelFixture {
    static let waiting = #"""
        {"name": "ask", "version": 1, "blocks": [
          {"type": "step", "id": "approve", "handler": "noop", "wait_for_input": {"prompt": "Go?", "choices": [{"value": "yes"}]}},
          {"type": "step", "id": "finish", "handler": "noop"}
        ]}
        """#

    let path = FileManager.default.temporaryDirectory.appendingPathComponent("schedule-\(UUID().uuidString).db").path
    let clock = VirtualClock(start: 1_800_000_000_000)
    let transport = ProgrammableTransport()
    let channel: SyncChannel
    let engine: StepwiseEngine

    init(operationTimeoutMs: UInt64 = 10_000) async throws {
        var configuration = EngineConfiguration()
        configuration.syncUrl = "https://sync.test/mobile/sync"
        configuration.deviceId = "device-7"
        configuration.operationTimeoutMs = operationTimeoutMs
        configuration.maxConcurrentInstances = 1_000
        channel = try SyncChannel(configuration: configuration, transport: transport, appVersion: "1.0")
        engine = try StepwiseEngine(
            store: try SQLiteExecutionStore(path: path), configuration: configuration, clock: clock, syncChannel: channel)
        _ = try await engine.loadSequence(json: Array(Self.waiting.utf8))
    }

    /// Starts `count` instances and runs them to their wait (`tickOnce` sends nothing).
    @discardableResult
    func startWaiting(_ count: Int) async throws -> [InstanceID] {
        var ids: [InstanceID] = []
        for _ in 0..<count { ids.append(try await engine.start("ask")) }
        _ = try await engine.tickOnce()
        return ids
    }

    func cleanup() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

@Suite("Sync channel schedule (SYNC.md §2.2, §2.10)")
struct SyncChannelScheduleTests {
    /// §2.10: the push flag is "cleared only by a successful round trip that started after the
    /// push (a push arriving mid-request causes another request)" — also in the same millisecond.
    @Test func aPushArrivingWhileARequestIsOutMakesAnotherRoundTripDue() async throws {
        let fixture = try await ChannelFixture()
        defer { fixture.cleanup() }
        let (engine, channel, clock) = (fixture.engine, fixture.channel, fixture.clock)
        _ = await channel.roundTrip(for: engine)
        clock.advance(to: clock.now() + 1_000)
        #expect(try #require(await channel.nextDue(for: engine)) > clock.now())

        // The clock does not move while the request is out: the push has the start's millisecond.
        fixture.transport.answer { _, _ in
            await engine.onPushReceived()
            return (200, ["sync_interval_secs": 30])
        }
        let served = await channel.roundTrip(for: engine)
        #expect(served.succeeded)
        #expect(try #require(await channel.nextDue(for: engine)) <= clock.now(), "the push came after the round trip started")

        fixture.transport.answer(with: ProgrammableTransport.plain)
        _ = await channel.roundTrip(for: engine)
        #expect(try #require(await channel.nextDue(for: engine)) > clock.now(), "served by a round trip that started after it")
        await engine.shutdown()
    }

    /// §2.2: a row whose generation changed while the request was out stays, and "when rows
    /// remain, the next request follows immediately".
    @Test func aStatusReplacedWhileTheRequestIsOutGoesInAFollowUpRequest() async throws {
        let fixture = try await ChannelFixture()
        defer { fixture.cleanup() }
        let engine = fixture.engine
        let id = try #require(try await fixture.startWaiting(1).first)
        fixture.transport.answer { index, _ in
            if index == 0 { try await engine.completeStep(instanceId: id, stepId: "approve", output: ["value": "yes"]) }
            return (200, ["sync_interval_secs": 30])
        }
        let result = await fixture.channel.roundTrip(for: engine)
        #expect(result.succeeded && result.requests == 2)
        let requests = fixture.transport.syncRequests
        #expect(requests.first?.body["status_updates"]?[0]?["state"] == "Waiting")
        #expect(requests.count == 2 && requests.last?.body["status_updates"]?[0]?["state"] != "Waiting")
        #expect(try await engine.outboxIsEmpty())
        await engine.shutdown()
    }

    /// §2.10 heartbeat: "no non-terminal instance, empty outbox and the last response had no
    /// commands → I' = max(I, 600 s)" — the last response of the cycle, not any of them.
    @Test func theIdleHeartbeatLooksAtTheLastResponseOnly() async throws {
        let fixture = try await ChannelFixture()
        defer { fixture.cleanup() }
        let (engine, channel, clock) = (fixture.engine, fixture.channel, fixture.clock)
        fixture.transport.answer { index, _ in
            guard index == 0 else { return (200, ["sync_interval_secs": 30]) }
            // Rejected (no such instance): its ack and result go in the follow-up request.
            let unknown: JSONValue = ["instance_id": "00000000-0000-4000-8000-000000000001"]
            return (200, ["commands": [["id": "c1", "type": "cancel_instance", "payload": unknown]], "sync_interval_secs": 30])
        }
        let result = await channel.roundTrip(for: engine)
        #expect(result.succeeded && result.requests == 2)
        #expect(fixture.transport.syncRequests.last?.body["command_acks"] == ["c1"])
        #expect(try await engine.outboxIsEmpty())
        #expect(await channel.nextDue(for: engine) == clock.now() + 600_000)
        await engine.shutdown()
    }

    /// SEMANTICS §6.4: "schedule the next background task at `nextDueAt`" — a device with no
    /// timer must still be woken when the channel is due.
    @Test func runUntilIdleNamesWhenTheChannelIsDueNext() async throws {
        let fixture = try await ChannelFixture()
        defer { fixture.cleanup() }
        try await fixture.startWaiting(1)
        fixture.transport.answer { _, _ in (200, ["sync_interval_secs": 60]) }
        let window = try await fixture.engine.runUntilIdle(maxTicks: 10, timeBudgetMs: 60_000)
        #expect(fixture.transport.syncRequests.count == 1)
        #expect(window.nextDueAt == fixture.clock.now() + 60_000)
        await fixture.engine.shutdown()
    }

    /// SEMANTICS §6.4 "one final sync-channel flush … (bounded by operationTimeoutMs)", SYNC.md
    /// §2.10 `runUntilIdle`: the whole round trip ends by `operationTimeoutMs`, not each of its
    /// requests. A server that answers as late as each request allows leaves time for one at
    /// most (none on a machine so busy that the deadline passes before the first).
    @Test(arguments: ["runUntilIdle", "shutdown"])
    func theRoundTripAsAWholeEndsByOperationTimeout(_ caller: String) async throws {
        let fixture = try await ChannelFixture(operationTimeoutMs: 500)
        defer { fixture.cleanup() }
        // 51 approvals: two requests' worth.
        try await fixture.startWaiting(51)
        fixture.transport.answer { _, timeoutMs in
            try await Task.sleep(for: .milliseconds(timeoutMs))
            return (200, ["sync_interval_secs": 30])
        }
        if caller == "runUntilIdle" {
            _ = try await fixture.engine.runUntilIdle(maxTicks: 10, timeBudgetMs: 60_000)
        } else {
            await fixture.engine.shutdown()
        }
        let requests = fixture.transport.syncRequests
        #expect(requests.count <= 1, "no request starts once the deadline has passed")
        #expect(requests.allSatisfy { $0.timeoutMs <= 500 })
        fixture.transport.answer(with: ProgrammableTransport.plain)
        await fixture.engine.shutdown()
    }
}

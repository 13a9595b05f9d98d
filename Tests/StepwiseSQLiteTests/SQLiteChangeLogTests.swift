import StepwiseExecution
import StepwiseJSON
@testable import StepwiseSQLite
import Testing

/// Hot-path commits go to the change log (one row) and reach their tables later, coalesced:
/// reads see them at once, a reopened store writes what a killed process left, and direct
/// writes (constraints, deletions) land after every logged change.
@Suite struct SQLiteChangeLogTests {
    static let first = InstanceID(rawValue: "00000000-0000-4000-8000-000000000001")!
    static let second = InstanceID(rawValue: "00000000-0000-4000-8000-000000000002")!

    func record(_ id: InstanceID, steps: Int = 0, dedupKey: String? = nil, data: JSONObject = [:]) -> InstanceRecord {
        InstanceRecord(
            id: id, sequence: SequenceKey(name: "flow", version: 1), state: .running, data: data, config: [:],
            dedupKey: dedupKey, createdAt: 1, updatedAt: Int64(1 + steps), lifetimeStartedAt: 1, stepsExecuted: steps,
            randomSeed: 7)
    }

    func entry(_ id: InstanceID, _ step: String, at: Int64) -> JournalEntry {
        JournalEntry(instance: id, node: NodeID(rawValue: 1), kind: .stepCompleted, stepID: step, attempt: 1, at: at, payload: ["output": 1])
    }

    /// A store holding sequence `flow` v1 and instance `first` (written directly: it is new).
    func openStore(_ path: String) throws -> SQLiteExecutionStore {
        let store = try SQLiteExecutionStore(path: path)
        var setup = StoreBatch()
        setup.sequences = [(StoredSequence(key: SequenceKey(name: "flow", version: 1), isDeprecated: false, origin: "local", sha256: "x", installedAt: 1), Array("{}".utf8))]
        setup.instances = [record(Self.first, dedupKey: "k")]
        try store.commit(setup)
        return store
    }

    func count(_ path: String, _ table: String) throws -> Int64 {
        try rowCount(try SQLiteConnection(path: path, configuration: .init(isReadOnly: true)), table)
    }

    @Test func aStepCommitIsOneLogRowAndReadsSeeIt() throws {
        try withTemporaryDatabase { path in
            let store = try openStore(path)
            var batch = StoreBatch()
            batch.instances = [record(Self.first, steps: 1, dedupKey: "k", data: ["a": 1])]
            var node = Node(id: NodeID(rawValue: 1), parent: .root, blockIndex: 0, list: 0, position: 0, iteration: 0)
            node.state = .completed
            batch.nodes = [(Self.first, [node])]
            batch.journal = [entry(Self.first, "a", at: 2)]
            batch.metadata = [("cursor", "5")]
            try store.commit(batch)

            #expect(try count(path, "change_log") == 1)
            #expect(try count(path, "journal_chunks") == 0)
            let journal = try store.journal(after: 0, limit: 10)
            #expect(journal.map(\.stepID) == ["a"])
            #expect(journal.first?.sequence == 1)
            #expect(try store.journal(of: Self.first).map(\.stepID) == ["a"])
            #expect(try store.metadata("cursor") == "5")

            // A read of the tables folds the log first.
            let loaded = try #require(try store.loadInstance(Self.first))
            #expect(loaded.0.stepsExecuted == 1 && loaded.0.data["a"] == .integer(1))
            #expect(loaded.1.first?.state == .completed)
            #expect(try count(path, "change_log") == 0)
            #expect(try count(path, "journal_chunks") == 1)
            #expect(try store.journal(after: 0, limit: 10).map(\.sequence) == [1])
        }
    }

    @Test func manyVersionsOfARowCoalesceIntoTheLast() throws {
        try withTemporaryDatabase { path in
            let store = try openStore(path)
            for step in 1...50 {
                var batch = StoreBatch()
                batch.instances = [record(Self.first, steps: step, dedupKey: "k", data: ["n": .integer(Int64(step))])]
                batch.journal = [entry(Self.first, "s\(step)", at: Int64(step))]
                try store.commit(batch)
            }
            #expect(try count(path, "change_log") == 50)
            try store.settle()
            #expect(try count(path, "change_log") == 0)
            #expect(try store.loadInstance(Self.first)?.0.data["n"] == .integer(50))
            let journal = try store.journal(of: Self.first)
            #expect(journal.map(\.sequence) == Array(1...50))
            #expect(journal.last?.stepID == "s50")
            #expect(try count(path, "journal_chunks") == 1, "one instance's entries of one fold are one chunk")
        }
    }

    @Test func aReopenedStoreWritesTheLogAKilledProcessLeft() throws {
        try withTemporaryDatabase { path in
            do {
                let store = try openStore(path)
                for step in 1...3 {
                    var batch = StoreBatch()
                    batch.instances = [record(Self.first, steps: step, dedupKey: "k")]
                    batch.journal = [entry(Self.first, "s\(step)", at: Int64(step))]
                    try store.commit(batch)
                }
                // No settle: the store goes away as with a kill.
            }
            #expect(try count(path, "change_log") == 3)
            let reopened = try SQLiteExecutionStore(path: path)
            #expect(try count(path, "change_log") == 0)
            #expect(try reopened.loadInstance(Self.first)?.0.stepsExecuted == 3)
            #expect(try reopened.journal(of: Self.first).map(\.stepID) == ["s1", "s2", "s3"])
            // Numbering goes on after the recovered entries.
            var batch = StoreBatch()
            batch.instances = [record(Self.first, steps: 4, dedupKey: "k")]
            batch.journal = [entry(Self.first, "s4", at: 4)]
            try reopened.commit(batch)
            #expect(try reopened.journal(after: 3, limit: 5).map(\.sequence) == [4])
        }
    }

    @Test func interleavedChunksReadInSequenceOrderPageByPage() throws {
        try withTemporaryDatabase { path in
            let store = try openStore(path)
            var start = StoreBatch()
            start.instances = [record(Self.second)]
            try store.commit(start)
            // Two instances alternate for three folds: their chunks overlap in sequence numbers.
            for fold in 0..<3 {
                for step in 0..<4 {
                    var batch = StoreBatch()
                    let id = step % 2 == 0 ? Self.first : Self.second
                    batch.instances = [record(id, steps: fold * 4 + step + 1, dedupKey: id == Self.first ? "k" : nil)]
                    batch.journal = [entry(id, "f\(fold)s\(step)", at: 1)]
                    try store.commit(batch)
                }
                try store.settle()
            }
            #expect(try count(path, "journal_chunks") == 6)
            var read: [Int64] = []
            var cursor: Int64 = 0
            while true {
                let page = try store.journal(after: cursor, limit: 5)
                guard let last = page.last else { break }
                #expect(page.count <= 5)
                read += page.map(\.sequence)
                cursor = last.sequence
            }
            #expect(read == Array(1...12))
            #expect(try store.journal(after: 3, limit: 2).map(\.stepID) == ["f0s3", "f1s0"])
            #expect(try store.journal(of: Self.second).map(\.stepID) == ["f0s1", "f0s3", "f1s1", "f1s3", "f2s1", "f2s3"])
            #expect(try store.journal(after: 0, limit: 0).isEmpty)
        }
    }

    @Test func instanceRowsAreLoggedAsTheirChangesAndRebuiltOnRecovery() throws {
        try withTemporaryDatabase { path in
            var data: JSONObject = ["base": "x"]
            do {
                let store = try openStore(path)
                var first = StoreBatch()
                first.instances = [record(Self.first, steps: 1, dedupKey: "k", data: data)]
                try store.commit(first)
                try store.settle()
                for step in 2...6 {
                    // The members the engine reports as set since the previous commit.
                    var changes = InstanceObjectChanges()
                    data["s\(step)"] = .integer(Int64(step))
                    changes.data = ["s\(step)"]
                    if step == 4 {
                        data["base"] = "changed"
                        changes.data?.insert("base")
                    }
                    var batch = StoreBatch()
                    var next = record(Self.first, steps: step, dedupKey: "k", data: data)
                    next.outputs = ["last": .integer(Int64(step))]
                    changes.outputs = ["last"]
                    batch.instances = [next]
                    batch.objectChanges = [Self.first: changes]
                    try store.commit(batch)
                }
                // The last record holds one new member of data, not the whole object.
                let reader = try SQLiteConnection(path: path, configuration: .init(isReadOnly: true))
                let last = try #require(try reader.queryValue("SELECT body FROM change_log ORDER BY seq DESC LIMIT 1")?.blobValue)
                let writes = try SQLiteChangeLog.decode(last, record: 0)
                #expect(writes.first?.values[4] == .text(#"[["s6",6]]"#))
                #expect(writes.first?.values[5] == .null)
            }
            let reopened = try SQLiteExecutionStore(path: path)
            let loaded = try #require(try reopened.loadInstance(Self.first))
            #expect(loaded.0.data == data)
            #expect(loaded.0.data.keys == ["base", "s2", "s3", "s4", "s5", "s6"])
            #expect(loaded.0.outputs == ["last": 6])
            #expect(loaded.0.stepsExecuted == 6)
        }
    }

    /// Folding this store's own records writes a finished instance's last version from memory
    /// and replays the member changes of one still running; a reopened store replays them all.
    /// Every way must store the same row.
    @Test(arguments: [false, true]) func foldingOwnRecordsWritesTheRowReplayingThemWrites(finishes: Bool) throws {
        func commitSteps(_ store: SQLiteExecutionStore) throws {
            var data: JSONObject = [:]
            var outputs: JSONObject = [:]
            for step in 2...5 {
                // The members the engine reports as set since the previous commit.
                var changes = InstanceObjectChanges()
                data["s\(step)"] = .array([.integer(Int64(step)), "v"])
                outputs["s\(step)"] = .integer(Int64(step))
                changes.data = ["s\(step)"]
                changes.outputs = ["s\(step)"]
                var batch = StoreBatch()
                var next = record(Self.first, steps: step, dedupKey: "k", data: data)
                next.outputs = outputs
                if finishes && step == 5 {
                    next.state = .completed
                    next.finishedAt = 9
                }
                batch.instances = [next]
                batch.objectChanges = [Self.first: changes]
                try store.commit(batch)
            }
        }
        func storedRow(_ path: String) throws -> [SQLiteValue] {
            let reader = try SQLiteConnection(path: path, configuration: .init(isReadOnly: true))
            return try #require(try reader.query("SELECT data, config, outputs, steps_executed, state, finished_at FROM instances").first)
        }
        var rows: [[SQLiteValue]] = []
        for reopens in [false, true] {
            try withTemporaryDatabase { path in
                do {
                    let store = try openStore(path)
                    try store.settle()
                    try commitSteps(store)
                    #expect(try count(path, "change_log") == 4)
                    if !reopens { try store.settle() }
                }
                if reopens { _ = try SQLiteExecutionStore(path: path) }
                #expect(try count(path, "change_log") == 0)
                rows.append(try storedRow(path))
            }
        }
        #expect(rows.count == 2 && rows[0] == rows[1])
        #expect(rows.first?[0] == .blob(Array(#"{"s2":[2,"v"],"s3":[3,"v"],"s4":[4,"v"],"s5":[5,"v"]}"#.utf8)))
        #expect(rows.first?[2] == .blob(Array(#"{"s2":2,"s3":3,"s4":4,"s5":5}"#.utf8)))
    }

    @Test func changedMembersAreWrittenInTheObjectsOrderOrTheObjectWhole() throws {
        let object: JSONObject = ["a": 1, "b": 2, "c": 3, "d": 4, "e": 5]
        // Two members set in one commit: in the object's order, whatever the set's order.
        #expect(SQLiteExecutionStore.objectColumn(object, changed: ["d", "b"]) == .text(#"[["b",2],["d",4]]"#))
        #expect(SQLiteExecutionStore.objectColumn(object, changed: []) == .null)
        // A key no longer there (removed), more than half of the members, or no list: whole.
        let whole = SQLiteValue.blob(Array(#"{"a":1,"b":2,"c":3,"d":4,"e":5}"#.utf8))
        #expect(SQLiteExecutionStore.objectColumn(object, changed: ["z"]) == whole)
        #expect(SQLiteExecutionStore.objectColumn(object, changed: ["a", "b", "c", "d"]) == whole)
        #expect(SQLiteExecutionStore.objectColumn(object, changed: nil) == whole)
    }

    @Test func anInstanceWithoutReportedChangesIsLoggedWhole() throws {
        try withTemporaryDatabase { path in
            let store = try openStore(path)
            var batch = StoreBatch()
            batch.instances = [record(Self.first, steps: 1, dedupKey: "k", data: ["x": 1])]
            try store.commit(batch)
            let reader = try SQLiteConnection(path: path, configuration: .init(isReadOnly: true))
            let body = try #require(try reader.queryValue("SELECT body FROM change_log")?.blobValue)
            let writes = try SQLiteChangeLog.decode(body, record: 0)
            #expect(writes.first?.values[4] == .blob(Array(#"{"x":1}"#.utf8)))
            #expect(try store.loadInstance(Self.first)?.0.data == ["x": 1])
        }
    }

    @Test func aSecondConnectionFoldingTheLogLosesAndRepeatsNothing() throws {
        try withTemporaryDatabase { path in
            let owner = try openStore(path)
            for step in 1...3 {
                var batch = StoreBatch()
                batch.instances = [record(Self.first, steps: step, dedupKey: "k", data: ["n": .integer(Int64(step))])]
                batch.journal = [entry(Self.first, "s\(step)", at: Int64(step))]
                try owner.commit(batch)
            }
            // Another store opened on the file (a second process reading it) folds what it finds.
            let reader = try SQLiteExecutionStore(path: path)
            #expect(try count(path, "change_log") == 0)
            #expect(try reader.loadInstance(Self.first)?.0.stepsExecuted == 3)

            var batch = StoreBatch()
            batch.instances = [record(Self.first, steps: 4, dedupKey: "k", data: ["n": 4])]
            batch.journal = [entry(Self.first, "s4", at: 4)]
            try owner.commit(batch)
            #expect(try owner.journal(after: 0, limit: 10).map(\.stepID) == ["s1", "s2", "s3", "s4"])
            #expect(try owner.journal(of: Self.first).map(\.stepID) == ["s1", "s2", "s3", "s4"])
            try owner.settle()
            #expect(try count(path, "change_log") == 0)
            let loaded = try #require(try reader.loadInstance(Self.first))
            #expect(loaded.0.stepsExecuted == 4 && loaded.0.data["n"] == .integer(4))
            #expect(try reader.journal(of: Self.first).map(\.sequence) == [1, 2, 3, 4])
        }
    }

    @Test func twoConnectionsWritingTheJournalNeverReuseANumber() throws {
        try withTemporaryDatabase { path in
            let one = try openStore(path)
            let two = try SQLiteExecutionStore(path: path)
            var start = StoreBatch()
            start.instances = [record(Self.second)]
            try two.commit(start)
            for round in 0..<3 {
                for (store, id) in [(one, Self.first), (two, Self.second)] {
                    var batch = StoreBatch()
                    batch.instances = [record(id, steps: round + 1, dedupKey: id == Self.first ? "k" : nil)]
                    batch.journal = [entry(id, "r\(round)", at: 1), entry(id, "r\(round)b", at: 1)]
                    try store.commit(batch)
                }
            }
            try one.settle()
            try two.settle()
            let all = try one.journal(after: 0, limit: 100)
            #expect(all.count == 12)
            #expect(Set(all.map(\.sequence)).count == 12, "every entry has its own number")
            #expect(try one.journal(of: Self.second).map(\.stepID) == ["r0", "r0b", "r1", "r1b", "r2", "r2b"])
        }
    }

    @Test func directWritesLandAfterTheLoggedChanges() throws {
        try withTemporaryDatabase { path in
            let store = try openStore(path)
            var update = StoreBatch()
            update.instances = [record(Self.first, steps: 1, dedupKey: "k")]
            update.journal = [entry(Self.first, "a", at: 2)]
            try store.commit(update)
            #expect(try count(path, "change_log") == 1)

            // A new instance is written directly; its dedup key conflicts with the live one.
            var conflicting = StoreBatch()
            conflicting.instances = [record(Self.second, dedupKey: "k")]
            #expect(throws: StepwiseError.self) { try store.commit(conflicting) }
            #expect(try count(path, "change_log") == 1, "the failed direct commit folded nothing")

            // Deleting the instance (direct) deletes its logged journal too.
            var delete = StoreBatch()
            delete.deletedInstances = [Self.first]
            try store.commit(delete)
            #expect(try count(path, "change_log") == 0)
            #expect(try store.loadInstance(Self.first) == nil)
            #expect(try store.journal(of: Self.first).isEmpty)
            #expect(try count(path, "journal_chunks") == 0)
        }
    }

    @Test func settingANewDedupKeyIsWrittenDirectly() throws {
        try withTemporaryDatabase { path in
            let store = try openStore(path)
            var batch = StoreBatch()
            batch.instances = [record(Self.first, steps: 1, dedupKey: "other")]
            try store.commit(batch)
            #expect(try count(path, "change_log") == 0)
            #expect(try store.instanceHolding(dedupKey: "other") == Self.first)
        }
    }

    @Test func aNewInstanceWithoutADedupKeyIsLoggedWholeAndSurvivesAKill() throws {
        try withTemporaryDatabase { path in
            do {
                let store = try openStore(path)
                var start = StoreBatch()
                start.instances = [record(Self.second, data: ["input": "x"])]
                start.journal = [entry(Self.second, "start", at: 1)]
                try store.commit(start)
                #expect(try count(path, "change_log") == 1)
                #expect(try count(path, "instances") == 1)
                // The id is taken as soon as the commit returns, though no table holds it yet.
                #expect(try store.containsInstance(Self.second))
                // Later commits log only the members they set, applied to the logged whole row.
                var step = StoreBatch()
                step.instances = [record(Self.second, steps: 1, data: ["input": "x", "a": 1])]
                var changes = InstanceObjectChanges()
                changes.data = ["a"]
                step.objectChanges = [Self.second: changes]
                try store.commit(step)
                #expect(try count(path, "change_log") == 2)
                // No settle: the store goes away as with a kill.
            }
            let reopened = try SQLiteExecutionStore(path: path)
            #expect(try count(path, "change_log") == 0)
            let loaded = try #require(try reopened.loadInstance(Self.second))
            #expect(loaded.0.stepsExecuted == 1)
            #expect(loaded.0.data == ["input": "x", "a": 1])
            #expect(try reopened.journal(of: Self.second).map(\.stepID) == ["start"])
        }
    }

    @Test func aNewInstanceWithADedupKeyIsWrittenDirectly() throws {
        try withTemporaryDatabase { path in
            let store = try openStore(path)
            var start = StoreBatch()
            start.instances = [record(Self.second, dedupKey: "fresh")]
            try store.commit(start)
            #expect(try count(path, "change_log") == 0)
            #expect(try count(path, "instances") == 2)
        }
    }

    @Test func theLogIsFoldedWhenItReachesItsBound() throws {
        try withTemporaryDatabase { path in
            let store = try openStore(path)
            for step in 1...(SQLiteExecutionStore.maxLogRecords + 1) {
                var batch = StoreBatch()
                batch.instances = [record(Self.first, steps: step, dedupKey: "k")]
                try store.commit(batch)
            }
            #expect(try count(path, "change_log") == 0)
            #expect(try store.loadInstance(Self.first)?.0.stepsExecuted == SQLiteExecutionStore.maxLogRecords + 1)
        }
    }

    @Test func anIdleEngineHasTheLogFoldedOnceEnoughPiledUp() throws {
        try withTemporaryDatabase { path in
            let store = try openStore(path)
            func step(_ n: Int) throws {
                var batch = StoreBatch()
                batch.instances = [record(Self.first, steps: n, dedupKey: "k")]
                try store.commit(batch)
            }
            for n in 1...3 { try step(n) }
            try store.idle()
            #expect(try count(path, "change_log") == 3, "a short burst stays logged")
            for n in 4...SQLiteExecutionStore.idleFoldRecords { try step(n) }
            try store.idle()
            #expect(try count(path, "change_log") == 0)
            try step(1_000)
            try store.settle()
            #expect(try count(path, "change_log") == 0, "settle folds whatever is there")
            #expect(try store.loadInstance(Self.first)?.0.stepsExecuted == 1_000)
        }
    }

    @Test func recordsRoundTripAndDamageIsNamed() throws {
        let writes = [
            SQLiteRowWrite(statement: .setMetadata, values: [.text("ké"), .text("v")]),
            SQLiteRowWrite(statement: .outboxDelete, values: [.text("status"), .text("x"), .integer(-3), .null]),
            SQLiteRowWrite(statement: .commandMarker, values: [.text("c"), .blob([0, 255]), .real(1.5)]),
        ]
        var bytes: [UInt8] = []
        SQLiteChangeLog.encode(writes, into: &bytes)
        #expect(try SQLiteChangeLog.decode(bytes, record: 1) == writes)
        for cut in [2, 6, bytes.count - 1] {
            let error = #expect(throws: SQLiteError.self) { try SQLiteChangeLog.decode(Array(bytes.prefix(cut)), record: 9) }
            #expect(error?.isCorrupt == true)
            #expect(error?.message.contains("change log record 9") == true)
        }
        var unknown = bytes
        unknown[1] = 200
        #expect(throws: SQLiteError.self) { try SQLiteChangeLog.decode(unknown, record: 2) }
    }

    @Test func aDamagedJournalChunkIsNamedWhenRead() throws {
        try withTemporaryDatabase { path in
            let store = try openStore(path)
            var batch = StoreBatch()
            batch.journal = [entry(Self.first, "a", at: 2), entry(Self.first, "b", at: 3)]
            try store.commit(batch)
            try store.settle()
            let writer = try SQLiteConnection(path: path)
            try writer.execute("UPDATE journal_chunks SET entries = x'ff0102'")
            let error = #expect(throws: StepwiseError.self) { try store.journal(of: Self.first) }
            #expect(error?.code == .storage)
            #expect(error?.message.contains("the journal chunk from entry 1 is damaged at byte 1") == true, "\(error?.message ?? "")")
            // The feed (listener delivery, telemetry) goes past it instead of stopping for good.
            var later = StoreBatch()
            later.journal = [entry(Self.first, "c", at: 4)]
            try store.commit(later)
            try store.settle()
            #expect(try store.journal(after: 0, limit: 10).map(\.stepID) == ["c"])
        }
    }

    @Test func repeatedTextAndSmallNumbersTakeFewBytes() throws {
        let id = "00000000-0000-4000-8000-000000000001"
        let node: [SQLiteValue] = [.text(id), .integer(1), .null, .integer(0), .integer(0), .integer(0), .integer(0), .text("completed"),
            .text("done"), .integer(1), .null, .integer(1_732_000_000_000), .integer(1_732_000_000_001), .null, .null]
        var next = node
        next[1] = .integer(2)
        next[7] = .text("running")
        let writes = [
            SQLiteRowWrite(statement: .upsertNode, values: node), SQLiteRowWrite(statement: .upsertNode, values: next),
            SQLiteRowWrite(statement: .outboxDelete, values: [.text(id), .text("x"), .integer(.min), .integer(.max)]),
        ]
        var bytes: [UInt8] = []
        SQLiteChangeLog.encode(writes, into: &bytes)
        #expect(try SQLiteChangeLog.decode(bytes, record: 1) == writes)
        // The second row's id and phase are one byte each, a timestamp 7 bytes and a small
        // number 2 (the first version took 4 + 36 bytes for each id and 9 for each number: 287).
        #expect(bytes.count < 170, "\(bytes.count) bytes")
        // A repeat in the first write has nothing to repeat: damage.
        var damaged: [UInt8] = [SQLiteChangeLog.version2, SQLiteRowWrite.Statement.setMetadata.rawValue, 2, 5, 0]
        let error = #expect(throws: SQLiteError.self) { try SQLiteChangeLog.decode(damaged, record: 3) }
        #expect(error?.message.contains("nothing to repeat") == true)
        damaged[3] = 1
        damaged += [0x80]  // a varint whose continuation never comes
        #expect(throws: SQLiteError.self) { try SQLiteChangeLog.decode(damaged, record: 3) }
    }

    @Test func recordsAnOlderVersionLeftAreStillRead() throws {
        // Version 1: fixed 8-byte numbers and 4-byte lengths, no leading 0xFF.
        let legacy: [UInt8] = [
            SQLiteRowWrite.Statement.setMetadata.rawValue, 2, 3, 1, 0, 0, 0, 0x6B, 3, 2, 0, 0, 0, 0x76, 0x31,
            SQLiteRowWrite.Statement.outboxDelete.rawValue, 4, 3, 1, 0, 0, 0, 0x73, 0, 1, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0,
        ]
        #expect(
            try SQLiteChangeLog.decode(legacy, record: 1) == [
                SQLiteRowWrite(statement: .setMetadata, values: [.text("k"), .text("v1")]),
                SQLiteRowWrite(statement: .outboxDelete, values: [.text("s"), .null, .integer(-3), .null]),
            ])
    }

    @Test func coalescingKeepsTheLastRowVersionAndEveryAppend() {
        let a1 = SQLiteRowWrite(statement: .setMetadata, values: [.text("a"), .text("1")])
        let a2 = SQLiteRowWrite(statement: .setMetadata, values: [.text("a"), .text("2")])
        let touch = SQLiteRowWrite(statement: .outboxTouchStatus, values: [.text("i"), .text("i"), .integer(1)])
        #expect(SQLiteChangeLog.coalesce([[a1, touch], [touch, a2]]) == [a2, touch, touch])
    }
}

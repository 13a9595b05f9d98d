/// The binary form of one change-log record: the row writes of one commit.
///
/// Why a log: a step's commit changes an instance row, node rows, journal rows and their
/// indexes, each on its own B-tree page, and SQLite writes every dirty page whole to the WAL
/// (a transaction's cost grows with its pages, not its rows). Appending the commit as one row
/// of an append-only table dirties one page, as the single-row baseline does. The rows are
/// written to their tables later in one transaction ("folding"), where the many versions of
/// an instance or node row collapse into the last and pages are written once for many steps.
///
/// Layout (version 2): the byte `0xFF`, then per write the statement's raw value (1 byte) and
/// the value count (1 byte), then per value a tag and its payload:
/// - 0 null; 1 integer (zigzag, LEB128 varint); 2 real (8 bytes, little-endian);
/// - 3 text and 4 blob (a varint length, then the bytes);
/// - 5 text equal to the previous write's value at the same position (the instance id that
///   starts every row of a step, a repeated state).
///
/// Version 1 records (no leading `0xFF`; fixed 8-byte numbers and 4-byte lengths, no
/// repeats), which an older version may have left in a database, are still read.
enum SQLiteChangeLog {
    /// The first byte of a version 2 record (no statement has this raw value).
    static let version2: UInt8 = 0xFF

    /// Appends the encoding of `writes` to `bytes`.
    static func encode(_ writes: [SQLiteRowWrite], into bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + 1 + writes.count * 96)
        bytes.append(version2)
        var previous: [SQLiteValue] = []
        for write in writes {
            bytes.append(write.statement.rawValue)
            bytes.append(UInt8(write.values.count))
            for index in write.values.indices {
                switch write.values[index] {
                case .null:
                    bytes.append(0)
                case .integer(let i):
                    bytes.append(1)
                    appendVarint(UInt64(bitPattern: (i << 1) ^ (i >> 63)), to: &bytes)
                case .real(let d):
                    bytes.append(2)
                    for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: d.bitPattern >> UInt64(shift))) }
                case .text(let s):
                    if index < previous.count, case .text(let last) = previous[index], last == s {
                        bytes.append(5)
                        continue
                    }
                    bytes.append(3)
                    let utf8 = s.utf8
                    appendVarint(UInt64(utf8.count), to: &bytes)
                    bytes.append(contentsOf: utf8)
                case .blob(let b):
                    bytes.append(4)
                    appendVarint(UInt64(b.count), to: &bytes)
                    bytes.append(contentsOf: b)
                }
            }
            previous = write.values
        }
    }

    /// Decodes a record (or a journal chunk, which has the same layout).
    ///
    /// - Parameter source: what the bytes are, named in errors with `record`: a change-log
    ///   record's sequence number, a journal chunk's first entry.
    /// - Throws: ``SQLiteError`` `SQLITE_CORRUPT` naming the record and the offset when the bytes
    ///   are not a well-formed record (the file was damaged).
    static func decode(_ bytes: [UInt8], record: Int64, source: String = "change log record") throws(SQLiteError) -> [SQLiteRowWrite] {
        var reader = Reader(bytes: bytes, record: record, source: source)
        guard bytes.first == version2 else { return try reader.writes(version: 1) }
        reader.offset = 1
        return try reader.writes(version: 2)
    }

    /// Reads the writes of one record.
    private struct Reader {
        let bytes: [UInt8]
        let record: Int64
        let source: String
        var offset = 0

        init(bytes: [UInt8], record: Int64, source: String) {
            self.bytes = bytes
            self.record = record
            self.source = source
        }

        func corrupt(_ what: String) -> SQLiteError {
            SQLiteError(extendedCode: 11, message: "\(source) \(record) is damaged at byte \(offset): \(what)")
        }

        mutating func writes(version: Int) throws(SQLiteError) -> [SQLiteRowWrite] {
            var writes: [SQLiteRowWrite] = []
            var previous: [SQLiteValue] = []
            while offset < bytes.count {
                guard offset + 2 <= bytes.count, let statement = SQLiteRowWrite.Statement(rawValue: bytes[offset]) else {
                    throw corrupt("unknown statement")
                }
                let count = Int(bytes[offset + 1])
                guard count == statement.valueCount else { throw corrupt("\(count) values for \(statement)") }
                offset += 2
                var values: [SQLiteValue] = []
                values.reserveCapacity(count)
                for index in 0..<count {
                    guard offset < bytes.count else { throw corrupt("truncated value") }
                    let tag = bytes[offset]
                    offset += 1
                    switch (tag, version) {
                    case (0, _): values.append(.null)
                    case (1, 1): values.append(.integer(Int64(bitPattern: try word())))
                    case (1, _):
                        let zigzag = try varint()
                        values.append(.integer(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)))
                    case (2, _): values.append(.real(Double(bitPattern: try word())))
                    case (3, _):
                        let utf8 = try chunk(version: version)
                        guard let text = String(validating: utf8, as: UTF8.self) else { throw corrupt("text is not UTF-8") }
                        values.append(.text(text))
                    case (4, _): values.append(.blob(Array(try chunk(version: version))))
                    case (5, 2):
                        guard index < previous.count, case .text = previous[index] else { throw corrupt("a repeat with nothing to repeat") }
                        values.append(previous[index])
                    default: throw corrupt("unknown value tag \(tag)")
                    }
                }
                writes.append(SQLiteRowWrite(statement: statement, values: values))
                previous = values
            }
            return writes
        }

        mutating func word() throws(SQLiteError) -> UInt64 {
            guard offset + 8 <= bytes.count else { throw corrupt("truncated number") }
            var value: UInt64 = 0
            for i in 0..<8 { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
            offset += 8
            return value
        }

        mutating func varint() throws(SQLiteError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard offset < bytes.count else { throw corrupt("truncated number") }
                guard shift < 64 else { throw corrupt("number too long") }
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }

        mutating func chunk(version: Int) throws(SQLiteError) -> ArraySlice<UInt8> {
            let length: Int
            if version == 1 {
                guard offset + 4 <= bytes.count else { throw corrupt("truncated length") }
                var n = 0
                for i in 0..<4 { n |= Int(bytes[offset + i]) << (8 * i) }
                offset += 4
                length = n
            } else {
                let n = try varint()
                guard n <= UInt64(bytes.count) else { throw corrupt("length \(n) past the end") }
                length = Int(n)
            }
            guard length <= bytes.count - offset else { throw corrupt("length \(length) past the end") }
            defer { offset += length }
            return bytes[offset..<offset + length]
        }
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A node row's primary key (a struct, not an array: no allocation per write).
    private struct NodeRowKey: Hashable {
        let instance: SQLiteValue
        let node: SQLiteValue
    }

    /// Collapses the writes of many records into the ones that matter: the last version of
    /// each instance and node row (an upsert replaces the whole row) and of each metadata key;
    /// every journal insert and outbox change, in order (they do not replace one another).
    static func coalesce(_ records: [[SQLiteRowWrite]]) -> [SQLiteRowWrite] {
        var ordered: [SQLiteRowWrite] = []
        var lastUpsert: [SQLiteValue: Int] = [:]
        var lastNode: [NodeRowKey: Int] = [:]
        var lastMetadata: [SQLiteValue: Int] = [:]
        for writes in records {
            for write in writes {
                switch write.statement {
                case .upsertInstance:
                    if let i = lastUpsert[write.values[0]] { ordered[i] = write; continue }
                    lastUpsert[write.values[0]] = ordered.count
                case .upsertNode:
                    let key = NodeRowKey(instance: write.values[0], node: write.values[1])
                    if let i = lastNode[key] { ordered[i] = write; continue }
                    lastNode[key] = ordered.count
                case .setMetadata:
                    if let i = lastMetadata[write.values[0]] { ordered[i] = write; continue }
                    lastMetadata[write.values[0]] = ordered.count
                case .insertJournal, .outboxTouchStatus, .outboxPut, .outboxDelete, .commandMarker:
                    break
                }
                ordered.append(write)
            }
        }
        return ordered
    }
}

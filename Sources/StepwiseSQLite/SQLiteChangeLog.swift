/// The binary form of one change-log record: the row writes of one commit.
///
/// Why a log: a step's commit changes an instance row, node rows, journal rows and their
/// indexes, each on its own B-tree page, and SQLite writes every dirty page whole to the WAL
/// (a transaction's cost grows with its pages, not its rows). Appending the commit as one row
/// of an append-only table dirties one page, as the single-row baseline does. The rows are
/// written to their tables later in one transaction ("folding"), where the many versions of
/// an instance or node row collapse into the last and pages are written once for many steps.
///
/// Layout, little-endian: per write, the statement's raw value (1 byte), the value count
/// (1 byte), then per value a tag (0 null, 1 integer, 2 real, 3 text, 4 blob) and its
/// payload (8 bytes for numbers; a 4-byte length and the bytes for text and blobs).
enum SQLiteChangeLog {
    /// Appends the encoding of `writes` to `bytes`.
    static func encode(_ writes: [SQLiteRowWrite], into bytes: inout [UInt8]) {
        for write in writes {
            bytes.append(write.statement.rawValue)
            bytes.append(UInt8(write.values.count))
            for value in write.values {
                switch value {
                case .null:
                    bytes.append(0)
                case .integer(let i):
                    bytes.append(1)
                    appendWord(UInt64(bitPattern: i), to: &bytes)
                case .real(let d):
                    bytes.append(2)
                    appendWord(d.bitPattern, to: &bytes)
                case .text(let s):
                    bytes.append(3)
                    var s = s
                    s.withUTF8 { utf8 in
                        appendLength(utf8.count, to: &bytes)
                        bytes.append(contentsOf: utf8)
                    }
                case .blob(let b):
                    bytes.append(4)
                    appendLength(b.count, to: &bytes)
                    bytes.append(contentsOf: b)
                }
            }
        }
    }

    /// Decodes a record.
    ///
    /// - Throws: ``SQLiteError`` `SQLITE_CORRUPT` naming the record and the offset when the bytes
    ///   are not a well-formed record (the file was damaged).
    static func decode(_ bytes: [UInt8], record: Int64) throws(SQLiteError) -> [SQLiteRowWrite] {
        var writes: [SQLiteRowWrite] = []
        var offset = 0
        func corrupt(_ what: String) -> SQLiteError {
            SQLiteError(extendedCode: 11, message: "change log record \(record) is damaged at byte \(offset): \(what)")
        }
        func word() throws(SQLiteError) -> UInt64 {
            guard offset + 8 <= bytes.count else { throw corrupt("truncated number") }
            var value: UInt64 = 0
            for i in 0..<8 { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
            offset += 8
            return value
        }
        func chunk() throws(SQLiteError) -> ArraySlice<UInt8> {
            guard offset + 4 <= bytes.count else { throw corrupt("truncated length") }
            var length = 0
            for i in 0..<4 { length |= Int(bytes[offset + i]) << (8 * i) }
            offset += 4
            guard length <= bytes.count - offset else { throw corrupt("length \(length) past the end") }
            defer { offset += length }
            return bytes[offset..<offset + length]
        }
        while offset < bytes.count {
            guard offset + 2 <= bytes.count, let statement = SQLiteRowWrite.Statement(rawValue: bytes[offset]) else {
                throw corrupt("unknown statement")
            }
            let count = Int(bytes[offset + 1])
            guard count == statement.valueCount else { throw corrupt("\(count) values for \(statement)") }
            offset += 2
            var values: [SQLiteValue] = []
            values.reserveCapacity(count)
            for _ in 0..<count {
                guard offset < bytes.count else { throw corrupt("truncated value") }
                let tag = bytes[offset]
                offset += 1
                switch tag {
                case 0: values.append(.null)
                case 1: values.append(.integer(Int64(bitPattern: try word())))
                case 2: values.append(.real(Double(bitPattern: try word())))
                case 3:
                    let utf8 = try chunk()
                    guard let text = String(validating: utf8, as: UTF8.self) else { throw corrupt("text is not UTF-8") }
                    values.append(.text(text))
                case 4: values.append(.blob(Array(try chunk())))
                default: throw corrupt("unknown value tag \(tag)")
                }
            }
            writes.append(SQLiteRowWrite(statement: statement, values: values))
        }
        return writes
    }

    private static func appendWord(_ word: UInt64, to bytes: inout [UInt8]) {
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: word >> (8 * UInt64(i)))) }
    }

    private static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        let n = UInt32(clamping: length)
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: n >> (8 * UInt32(i)))) }
    }

    /// Collapses the writes of many records into the ones that matter: the last version of
    /// each instance and node row (an upsert replaces the whole row) and of each metadata key;
    /// every journal insert and outbox change, in order (they do not replace one another).
    static func coalesce(_ records: [[SQLiteRowWrite]]) -> [SQLiteRowWrite] {
        var ordered: [SQLiteRowWrite] = []
        var lastUpsert: [SQLiteValue: Int] = [:]
        var lastNode: [[SQLiteValue]: Int] = [:]
        var lastMetadata: [SQLiteValue: Int] = [:]
        for writes in records {
            for write in writes {
                switch write.statement {
                case .upsertInstance:
                    if let i = lastUpsert[write.values[0]] { ordered[i] = write; continue }
                    lastUpsert[write.values[0]] = ordered.count
                case .upsertNode:
                    let key = [write.values[0], write.values[1]]
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

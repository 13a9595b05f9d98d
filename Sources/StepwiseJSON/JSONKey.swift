/// A member name with a fingerprint of its UTF-8 bytes, compared and hashed by those bytes.
///
/// Swift's `String` equality is canonical equivalence (`"é" == "e\u{301}"`); JSON keys and
/// strings are sequences of Unicode scalars (RFC 8259 §8.3), so two keys are the same only when
/// their bytes are.
///
/// The fingerprint is the byte count and two 64-bit words of the bytes: the first eight and
/// the next eight for keys of up to 16 bytes, which then represent the key **exactly**, or the
/// first and last eight for longer keys, which are confirmed byte by byte when the fingerprints
/// match. Comparing two keys is therefore three integer comparisons in the common case, where
/// comparing two `String`s costs a function call and, for equal lengths, their bytes.
struct JSONKey: Hashable {
    let string: String
    let count: Int
    let head: UInt64
    let tail: UInt64

    /// The key for `string`.
    @inline(__always)
    init(_ string: String) {
        if let key = string.utf8.withContiguousStorageIfAvailable({ JSONKey(string, bytes: $0) }) {
            self = key
        } else {
            self = Array(string.utf8).withUnsafeBufferPointer { JSONKey(string, bytes: $0) }
        }
    }

    /// The key for `string`, whose UTF-8 bytes are `bytes`.
    @inline(__always)
    init(_ string: String, bytes: UnsafeBufferPointer<UInt8>) {
        self.string = string
        count = bytes.count
        head = Self.word(bytes, from: 0, count: min(8, count))
        if count <= 8 {
            tail = 0
        } else if count <= 16 {
            tail = Self.word(bytes, from: 8, count: count - 8)
        } else {
            tail = Self.word(bytes, from: count - 8, count: 8)
        }
    }

    @inline(__always)
    static func == (lhs: JSONKey, rhs: JSONKey) -> Bool {
        lhs.head == rhs.head && lhs.tail == rhs.tail && lhs.count == rhs.count
            && (lhs.count <= 16 || sameBytes(lhs.string, rhs.string))
    }

    /// Hashes the fingerprint, which equal keys share.
    func hash(into hasher: inout Hasher) {
        hasher.combine(head)
        hasher.combine(tail)
        hasher.combine(count)
    }

    /// Up to eight bytes from `offset`, little-endian, zero-padded.
    @inline(__always)
    private static func word(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int, count n: Int) -> UInt64 {
        guard n > 0, let base = bytes.baseAddress else { return 0 }
        if n == 8 { return UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)) }
        var value: UInt64 = 0
        for i in 0..<n { value |= UInt64(base[offset + i]) << UInt64(8 * i) }
        return value
    }

    /// Whether `a` and `b` have the same UTF-8 bytes.
    @inline(__always)
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let au = a.utf8
        let bu = b.utf8
        guard au.count == bu.count else { return false }
        let fast = au.withContiguousStorageIfAvailable { pa in
            bu.withContiguousStorageIfAvailable { pb in
                pa.count == 0 || memoryEqual(pa.baseAddress!, pb.baseAddress!, pa.count)
            }
        }
        if let fast, let fast { return fast }
        return au.elementsEqual(bu)
    }

    /// Feeds the UTF-8 bytes of `s` and their count to `hasher`.
    @inline(__always)
    static func hashBytes(of s: String, into hasher: inout Hasher) {
        let u = s.utf8
        let done: Void? = u.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil {
            for b in u { hasher.combine(b) }
        }
        hasher.combine(u.count)
    }

    @inline(__always)
    private static func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        firstDifference(a, b, n) == n
    }

    /// The index of the first byte where `a` and `b` differ among their first `n`, or `n`:
    /// eight bytes at a time, then byte by byte.
    @inline(__always)
    private static func firstDifference(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var i = 0
        while i + 8 <= n,
            UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self) == UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self)
        {
            i += 8
        }
        while i < n && a[i] == b[i] { i += 1 }
        return i
    }

    /// -1, 0 or 1 comparing the UTF-8 bytes of `x` and `y` (= Unicode scalar order).
    static func compareBytes(_ x: String, _ y: String) -> Int {
        let fast = x.utf8.withContiguousStorageIfAvailable { a in
            y.utf8.withContiguousStorageIfAvailable { b -> Int in
                let n = min(a.count, b.count)
                let i = n == 0 ? 0 : firstDifference(a.baseAddress!, b.baseAddress!, n)
                if i < n { return a[i] < b[i] ? -1 : 1 }
                return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
            }
        }
        if let fast, let fast { return fast }
        var i = x.utf8.makeIterator()
        var j = y.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let p?, let q?): if p != q { return p < q ? -1 : 1 }
            }
        }
    }
}

/// -1, 0 or 1 comparing the UTF-8 bytes of `x` and `y` (= Unicode scalar order), with the
/// word-at-a-time loop `==` on strings uses.
package func compareUTF8(_ x: String, _ y: String) -> Int { JSONKey.compareBytes(x, y) }

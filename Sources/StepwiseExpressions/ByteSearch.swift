/// A substring search on UTF-8 bytes in time linear in the haystack plus the needle, whatever
/// their contents (Knuth–Morris–Pratt): `contains()`, and the `replace` and `split` filters.
///
/// A naive search compares up to n·m bytes (an 8,000-byte `aaa…ab` needle over 4 MiB of `a`
/// is 32 G comparisons); this one compares at most 2n after an O(m) table, so charging by the
/// bytes touched (§3.9) matches the work done. Needles of up to ``shortNeedle`` bytes skip the
/// table: comparing them directly is already linear (at most ``shortNeedle`` comparisons a byte).
struct ByteSearch {
    /// Needles this long or shorter are compared directly, without a table.
    static let shortNeedle = 8

    /// The bytes searched for.
    let needle: [UInt8]
    /// For each prefix length `k` of the needle (1…m), the length of its longest proper
    /// prefix that is also its suffix; `border[k - 1]` holds it. Empty for short needles.
    private let border: [Int]

    /// Prepares a search for `needle` in O(`needle.count`).
    init(_ needle: [UInt8]) {
        self.needle = needle
        border = needle.count > Self.shortNeedle ? needle.withUnsafeBufferPointer(Self.borders) : []
    }

    /// Whether `needle` occurs in `haystack`, comparing UTF-8 bytes, without copying either.
    static func contains(_ needle: String, in haystack: String) -> Bool {
        var h = haystack
        var n = needle
        return h.withUTF8 { hb in
            n.withUTF8 { nb in
                if nb.count <= shortNeedle { return naiveIndex(of: nb, in: hb, from: 0) != nil }
                let border = borders(nb)
                return border.withUnsafeBufferPointer { b in kmpIndex(of: nb, border: b, in: hb, from: 0) } != nil
            }
        }
    }

    /// The first byte offset of the needle in `haystack` at or after `start`; an empty needle
    /// is found at `start` itself (when `start` is within the haystack or at its end).
    func firstIndex(in haystack: [UInt8], from start: Int) -> Int? {
        haystack.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { n in
                if n.count <= Self.shortNeedle { return Self.naiveIndex(of: n, in: h, from: start) }
                return border.withUnsafeBufferPointer { b in Self.kmpIndex(of: n, border: b, in: h, from: start) }
            }
        }
    }

    /// The border table of `needle` (see ``border``).
    private static func borders(_ n: UnsafeBufferPointer<UInt8>) -> [Int] {
        var border = [Int](repeating: 0, count: n.count)
        border.withUnsafeMutableBufferPointer { b in
            var k = 0
            var i = 1
            while i < n.count {
                while k > 0 && n[i] != n[k] { k = b[k - 1] }
                if n[i] == n[k] { k += 1 }
                b[i] = k
                i += 1
            }
        }
        return border
    }

    /// Direct comparison at each offset: linear for needles of at most ``shortNeedle`` bytes.
    private static func naiveIndex(
        of n: UnsafeBufferPointer<UInt8>, in h: UnsafeBufferPointer<UInt8>, from start: Int
    ) -> Int? {
        if n.isEmpty { return start <= h.count ? start : nil }
        guard start >= 0, h.count - start >= n.count else { return nil }
        let first = n[0]
        var i = start
        let last = h.count - n.count
        while i <= last {
            if h[i] == first {
                var k = 1
                while k < n.count, h[i + k] == n[k] { k += 1 }
                if k == n.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// Knuth–Morris–Pratt: each haystack byte is compared a bounded number of times overall.
    private static func kmpIndex(
        of n: UnsafeBufferPointer<UInt8>, border b: UnsafeBufferPointer<Int>, in h: UnsafeBufferPointer<UInt8>,
        from start: Int
    ) -> Int? {
        guard start >= 0, h.count - start >= n.count else { return nil }
        var matched = 0
        var i = start
        while i < h.count {
            let byte = h[i]
            while matched > 0 && byte != n[matched] { matched = b[matched - 1] }
            if byte == n[matched] {
                matched += 1
                if matched == n.count { return i + 1 - n.count }
            }
            i += 1
        }
        return nil
    }
}

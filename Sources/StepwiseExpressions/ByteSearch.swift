/// A substring search on UTF-8 bytes in time linear in the haystack plus the needle, whatever
/// their contents (Knuth–Morris–Pratt): `contains()`, and the `replace` and `split` filters.
///
/// A naive search compares up to n·m bytes (an 8,000-byte `aaa…ab` needle over 4 MiB of `a`
/// is 32 G comparisons); this one compares at most 2n after an O(m) table, so charging by the
/// bytes touched (§3.9) matches the work done.
struct ByteSearch {
    /// The bytes searched for.
    let needle: [UInt8]
    /// For each prefix length `k` of the needle (1…m), the length of its longest proper
    /// prefix that is also its suffix; `border[k - 1]` holds it.
    private let border: [Int]

    /// Prepares a search for `needle` in O(`needle.count`).
    init(_ needle: [UInt8]) {
        self.needle = needle
        var border = [Int](repeating: 0, count: needle.count)
        needle.withUnsafeBufferPointer { n in
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
        }
        self.border = border
    }

    /// The first byte offset of the needle in `haystack` at or after `start`; an empty needle
    /// is found at `start` itself (when `start` is within the haystack or at its end).
    func firstIndex(in haystack: [UInt8], from start: Int) -> Int? {
        if needle.isEmpty { return start <= haystack.count ? start : nil }
        guard start >= 0, haystack.count - start >= needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { n in
                border.withUnsafeBufferPointer { b in
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
        }
    }
}

#if os(Linux)
import Glibc
#endif

/// This process's resident memory, from `/proc/self/status` (Linux only).
///
/// `VmRSS` is the resident set now; `VmHWM` its high-water mark, which
/// ``resetPeak()`` lowers to the current resident set by writing `5` to `/proc/self/clear_refs`
/// (Linux 4.0 and later).
enum ProcessMemory {
    /// Resident bytes now, or `nil` where unsupported.
    static func residentBytes() -> Int? { statusField("VmRSS:") }

    /// Peak resident bytes since start or the last reset, or `nil` where unsupported.
    static func peakResidentBytes() -> Int? { statusField("VmHWM:") }

    /// Lowers the high-water mark to the current resident set; `false` where that is not
    /// possible (the peak then counts from process start).
    @discardableResult
    static func resetPeak() -> Bool {
        #if os(Linux)
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var five = UInt8(ascii: "5")
        return write(fd, &five, 1) == 1
        #else
        return false
        #endif
    }

    private static func statusField(_ field: String) -> Int? {
        #if os(Linux)
        guard let text = readFile("/proc/self/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            // "VmRSS:\t   12345 kB"
            let words = line.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = words.first, let kilobytes = Int(first) else { return nil }
            return kilobytes * 1024
        }
        return nil
        #else
        return nil
        #endif
    }

    #if os(Linux)
    private static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
    #endif
}

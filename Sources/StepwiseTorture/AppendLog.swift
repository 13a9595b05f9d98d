#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends lines to a file with `fsync`, so what a killed process wrote survives it.
enum AppendLog {
    static func append(_ line: String, to path: String) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return }
        var bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
        _ = fsync(fd)
        _ = close(fd)
    }

    static func lines(_ path: String) -> [String] {
        guard let fd = Optional(open(path, O_RDONLY)), fd >= 0 else { return [] }
        defer { _ = close(fd) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Ends the process at once, as a crash would.
    static func die() -> Never {
        _ = kill(getpid(), SIGKILL)
        fatalError("SIGKILL did not end the process")
    }
}

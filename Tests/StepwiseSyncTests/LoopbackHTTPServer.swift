import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for testing ``URLSessionManifestFetcher``: one request per
/// connection, canned answers by path, every request line and header recorded. Bounded: it
/// serves until ``stop()`` and only on the loopback interface.
final class LoopbackHTTPServer: Sendable {
    struct Answer: Sendable {
        var status: Int = 200
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        /// Omit `Content-Length` (the body ends when the connection closes).
        var omitContentLength = false
        /// Wait this long before answering, in milliseconds.
        var delayMilliseconds: UInt32 = 0
    }

    struct Received: Sendable {
        let method: String
        let path: String
        let headers: [String: String]
        let body: [UInt8]
    }

    private struct State {
        var answers: [String: Answer] = [:]
        var received: [Received] = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let socketFD: Int32
    let port: UInt16

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socketFD = fd
        port = UInt16(bigEndian: actual.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func answer(_ path: String, _ answer: Answer) { state.withLock { $0.answers[path] = answer } }

    var received: [Received] { state.withLock { $0.received } }

    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(socketFD, Int32(SHUT_RDWR))
        close(socketFD)
    }

    private func acceptLoop() {
        while !state.withLock({ $0.stopped }) {
            let client = accept(socketFD, nil, nil)
            if client < 0 { return }
            handle(client)
        }
    }

    private func handle(_ client: Int32) {
        defer { close(client) }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd {
            let n = read(client, &buffer, buffer.count)
            if n <= 0 { return }
            request += buffer[0..<n]
            if request.count > 65_536 { return }
        }
        let headEnd = request.headerEnd
        let text = String(decoding: request[..<headEnd], as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        let method = requestLine.first.map(String.init) ?? "GET"
        let path = requestLine.dropFirst().first.map(String.init) ?? "/"
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(request[(headEnd + 4)...])
        let declared = headers["content-length"].flatMap(Int.init) ?? 0
        while body.count < min(declared, 1 << 20) {
            let n = read(client, &buffer, buffer.count)
            if n <= 0 { break }
            body += buffer[0..<n]
        }
        let answer = state.withLock { s -> Answer in
            s.received.append(Received(method: method, path: path, headers: headers, body: body))
            return s.answers[path] ?? Answer(status: 404, body: Array("not found".utf8))
        }
        if answer.delayMilliseconds > 0 { usleep(answer.delayMilliseconds * 1000) }
        var head = "HTTP/1.1 \(answer.status) X\r\nConnection: close\r\n"
        if !answer.omitContentLength { head += "Content-Length: \(answer.body.count)\r\n" }
        for (name, value) in answer.headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + answer.body
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(client, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool { headerEnd < count }

    /// The offset of the blank line's CRLF CRLF ending the head, or `count` when not there yet.
    fileprivate var headerEnd: Int {
        guard count >= 4 else { return count }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 {
            return i
        }
        return count
    }
}

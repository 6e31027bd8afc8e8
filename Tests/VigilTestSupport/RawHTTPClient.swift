import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over a POSIX socket, so tests control every byte sent (oversized
/// and chunked bodies, several requests on one connection).
public final class RawHTTPClient {
    public struct Response {
        public let status: Int
        public let headers: [String: String]
        public let body: [UInt8]
        public func decode<T: Decodable>(_ type: T.Type) -> T? { try? JSONDecoder().decode(type, from: Data(body)) }
        /// The `{"error": {...}}` body.
        public var error: ErrorBody.Detail? { decode(ErrorBody.self)?.error }
    }

    public struct ErrorBody: Decodable {
        public struct Detail: Decodable { public let code: String, message: String, requestId: String }
        public let error: Detail
    }

    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `port` on 127.0.0.1 from `source` (any 127.x.y.z address is this machine's
    /// too, so tests can be two clients); a read waits at most `timeout` seconds.
    public init(port: UInt16, from source: String = "127.0.0.1", timeout: Double = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            Glibc.close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close() }

    /// Closes the connection (once; later sends fail).
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Sends `bytes`; false when the connection broke first (reset, or closed by the server).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Sends a request and reads its answer; `whileWaiting` runs between the two (a test kills
    /// the server there).
    public func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = [],
                        whileWaiting: () -> Void = {}) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        send(Array((head + "\r\n").utf8) + body)
        whileWaiting()
        return try readResponse()
    }

    public func readResponse() throws -> Response {
        while true {
            if let end = find([13, 10, 13, 10]) {
                let head = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                let status = Int(head[0].split(separator: " ")[1]) ?? 0
                var headers: [String: String] = [:]
                for line in head.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                while buffer.count < end + 4 + length { guard fill() else { break } }
                let body = Array(buffer[(end + 4)..<min(buffer.count, end + 4 + length)])
                buffer.removeFirst(min(buffer.count, end + 4 + length))
                return Response(status: status, headers: headers, body: body)
            }
            guard fill() else { throw POSIXError(.ECONNRESET) }
        }
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { return false }
        buffer += chunk[..<n]
        return true
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where buffer[i..<(i + pattern.count)].elementsEqual(pattern) { return i }
        return nil
    }
}

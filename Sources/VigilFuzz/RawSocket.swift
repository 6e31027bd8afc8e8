import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One request's bytes over a fresh loopback connection, and the status line of the answer.
enum RawSocket {
    /// The answer's status, or nil when the server closed the connection or sent nothing
    /// within `timeout` seconds.
    static func exchange(_ bytes: [UInt8], port: UInt16, timeout: Double) -> (status: Int, bytes: Int)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        // Read until one whole answer is in (its headers and Content-Length bytes): a kept-alive
        // connection stays open after it.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 256 * 1024 {
            if let complete = answerLength(received), received.count >= complete { break }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        let line = String(decoding: received.prefix(32), as: UTF8.self)
        guard line.hasPrefix("HTTP/1."), line.count >= 12, let status = Int(line.dropFirst(9).prefix(3)) else { return nil }
        return (status, received.count)
    }

    /// The length of the answer at the start of `bytes` once its headers are in.
    private static func answerLength(_ bytes: [UInt8]) -> Int? {
        guard let end = headerEnd(bytes) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return end + 4 + length
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
        return nil
    }

    /// `bytes` made a whole request where the mutation left it cut short: the header block ended,
    /// and the body as long as its `Content-Length` says (up to 4 MiB), so that the server answers
    /// instead of waiting for the rest.
    static func completed(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        guard let end = headerEnd(out) else { return out + Array("\r\n\r\n".utf8) }
        let head = String(decoding: out[..<end], as: UTF8.self).lowercased()
        guard let declared = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") })
            .flatMap({ Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }), (0...4 << 20).contains(declared) else { return out }
        let body = out.count - end - 4
        if body < declared { out += [UInt8](repeating: 0x41, count: declared - body) }
        return out
    }
}

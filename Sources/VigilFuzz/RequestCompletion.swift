/// Mutated request bytes made a whole request where the mutation left them cut short, so that
/// the server answers instead of waiting for the rest.
enum RequestCompletion {
    /// `bytes` with its header block ended, and its body as long as its `Content-Length` says
    /// (up to 4 MiB).
    static func completed(_ bytes: [UInt8]) -> [UInt8] {
        guard let end = headerEnd(bytes) else { return bytes + Array("\r\n\r\n".utf8) }
        let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
        guard let declared = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") })
            .flatMap({ Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }), (0...4 << 20).contains(declared)
        else { return bytes }
        let body = bytes.count - end - 4
        return body < declared ? bytes + [UInt8](repeating: 0x41, count: declared - body) : bytes
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
        return nil
    }
}

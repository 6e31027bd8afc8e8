import CCurl
import Foundation

/// POSTs webhook deliveries with libcurl, pinned to the address `WebhookTarget` checked: no DNS
/// lookup of its own, no redirects (a redirect is a failed attempt), no proxy from the
/// environment. Foundation's `URLSession` can do none of the pinning on Linux.
enum WebhookHTTPClient {
    /// Sends `body` with `headers`; nil on a 2xx answer, the failure otherwise.
    static func post(_ body: [UInt8], to target: WebhookTarget, headers: [(name: String, value: String)], timeout: Double) -> String? {
        var status = 0
        var error = [CChar](repeating: 0, count: 256)
        let lines = headers.map { "\($0.name): \($0.value)" }
        let code = withCStrings(lines) { headerPointers in
            body.withUnsafeBufferPointer { bytes in
                vigil_curl_post(target.url, target.host, Int32(target.port), target.address, headerPointers, lines.count,
                                bytes.baseAddress, bytes.count, Int(timeout * 1000), &status, &error, error.count)
            }
        }
        guard code == 0 else { return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return (200..<300).contains(status) ? nil : "HTTP \(status)"
    }

    /// Calls `body` with `strings` as C strings that live until it returns.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

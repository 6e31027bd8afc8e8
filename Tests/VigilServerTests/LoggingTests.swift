import Foundation
import Synchronization
import Testing
import VigilCore
import VigilServer

/// A logger keeping its lines, for tests.
final class CapturingLogger: Logger {
    let level: LogLevel = .debug
    private let lines = Mutex<[(level: LogLevel, event: String, fields: [String: LogValue])]>([])
    func log(_ level: LogLevel, _ event: String, _ fields: [String: LogValue]) { lines.withLock { $0.append((level, event, fields)) } }
    var logged: [(level: LogLevel, event: String, fields: [String: LogValue])] { lines.withLock { $0 } }
    /// Every line as JSON text, to search for what must never be logged.
    var text: String { logged.map { JSONLinesLogger.line($0.level, $0.event, $0.fields, at: Date(timeIntervalSince1970: 0)) }.joined() }
}

@Suite struct LoggingTests {
    @Test func eachRequestHasOneAccessLineWithItsRouteAndTenantAndNeverItsSecrets() throws {
        let logger = CapturingLogger()
        let t = try TestServer(faces: .standIn, logger: logger)
        let (id, token) = t.createSession()
        #expect(t.request("GET", "/v1/sessions/\(id)", bearer: t.apiKeys["a"], headers: ["X-Request-Id": "req-read-1"]).status == 200)
        #expect(t.request("GET", "/v1/client/session", bearer: token).status == 200)
        #expect(t.request("GET", "/v1/sessions/\(id)", bearer: "vk_live_wrong").status == 401)
        let lines = logger.logged.filter { $0.event == "request" }
        let read = try #require(lines.first { $0.fields["requestId"] == "req-read-1" })
        #expect(read.fields["method"] == "GET" && read.fields["route"] == "/v1/sessions/{sessionId}" && read.fields["status"] == 200)
        #expect(read.fields["tenantId"] == .text(t.tenantIds["a"]!))
        if case .number(let ms)? = read.fields["ms"] { #expect(ms >= 0) } else { Issue.record("no duration") }
        #expect(lines.contains { $0.fields["route"] == "/v1/client/session" && $0.fields["tenantId"] == .text(t.tenantIds["a"]!) })
        #expect(lines.contains { $0.fields["status"] == 401 && $0.fields["code"] == "invalid_api_key" && $0.fields["tenantId"] == nil })
        #expect(lines.count == 4)   // the creation and the three above
        for secret in [t.apiKeys["a"]!, token, id] { #expect(!logger.text.contains(secret), "\(secret) logged") }
    }

    @Test func aServerErrorIsLoggedWithItsCause() throws {
        let logger = CapturingLogger()
        let t = try TestServer(faces: .standIn, logger: logger)
        let (id, token) = t.createSession()
        var record = try #require(try t.store.session(id: id, tenantId: t.tenantIds["a"]!))
        record.engineState = Array("not an engine".utf8)
        try t.store.updateSession(record, enqueue: nil)
        let frame = t.request("POST", "/v1/client/frames", bearer: token, headers: ["Content-Type": "image/jpeg", "Vigil-Capture-Time": "0"],
                              body: try DeviceAPITests.jpegFrame())
        #expect(frame.status == 500 && frame.errorCode == "engine_state_corrupt")
        let line = try #require(logger.logged.first { $0.event == "server_error" })
        #expect(line.level == .error && line.fields["route"] == "/v1/client/frames" && line.fields["code"] == "engine_state_corrupt")
        #expect(line.fields["cause"] == "the session's stored engine state cannot be read")
        #expect(line.fields["requestId"] == .text(frame.headers["x-request-id"] ?? "?"))
    }

    @Test func aLineIsOneJSONObjectAndLevelsBelowTheLoggersAreDropped() throws {
        let line = JSONLinesLogger.line(.warning, "webhook_failed", ["cause": "HTTP 500 \"x\"\n", "attempt": 2], at: Date(timeIntervalSince1970: 0))
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "warning" && object["event"] as? String == "webhook_failed")
        #expect(object["cause"] as? String == "HTTP 500 \"x\"\n" && object["attempt"] as? Int == 2)
        #expect(object["time"] as? String == "1970-01-01T00:00:00.000Z")
        #expect(JSONLinesLogger.timestamp(Date(timeIntervalSince1970: 1_796_308_255.042)) == "2026-12-03T14:30:55.042Z")
        #expect(LogLevel(name: "warning") == .warning && LogLevel(name: "verbose") == nil)
        #expect(LogLevel.error > .info)
    }
}

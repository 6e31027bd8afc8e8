import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's headless Chromium driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: JSON messages ended by NUL, on fds 3 and 4), with an optional
/// Y4M file as its camera. One page per instance; not for concurrent use.
public final class HeadlessChromium: @unchecked Sendable {
    // Invariant: `replies`/`events`/`pending` are touched only with `condition` locked; the
    // reader thread is the only one reading `fromBrowser`.
    public enum Failure: Error, CustomStringConvertible {
        case notInstalled, spawn(Int32), timeout(String), protocolError(String)
        public var description: String {
            switch self {
            case .notInstalled: "chromium is not installed (scripts/setup installs it)"
            case .spawn(let code): "chromium did not start (posix_spawn \(code))"
            case .timeout(let what): "chromium: timed out waiting for \(what)"
            case .protocolError(let message): "chromium: \(message)"
            }
        }
    }

    /// The browser, when installed.
    public static var executable: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private let pid: pid_t
    private let toBrowser: Int32
    private let fromBrowser: Int32
    private let profile: URL
    private let condition = NSCondition()
    private var replies: [Int: [String: Any]] = [:]
    private var events: [[String: Any]] = []
    private var nextId = 0
    private var closed = false
    private var session: String?

    /// Starts Chromium; `camera` is the Y4M it plays as the webcam (nil: Chromium's test pattern,
    /// from `cameras` devices), `grantCamera` false leaves the permission to be denied by the test.
    public init(camera: URL?, grantCamera: Bool = true, cameras: Int = 1) throws {
        guard let executable = Self.executable else { throw Failure.notInstalled }
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        var arguments = [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                         "--mute-audio", "--remote-debugging-pipe", "--user-data-dir=\(profile.path)", "--window-size=480,900",
                         cameras > 1 ? "--use-fake-device-for-media-stream=device-count=\(cameras)" : "--use-fake-device-for-media-stream"]
        if grantCamera { arguments.append("--use-fake-ui-for-media-stream") }
        if let camera { arguments.append("--use-file-for-fake-video-capture=\(camera.path)") }
        arguments.append("about:blank")

        var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw Failure.spawn(errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 3)
        posix_spawn_file_actions_adddup2(&actions, output[1], 4)
        let log = profile.appendingPathComponent("stderr.log").path
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var child: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let code = posix_spawn(&child, executable, &actions, nil, argv, environ)
        close(input[0])
        close(output[1])
        guard code == 0 else {
            close(input[1])
            close(output[0])
            throw Failure.spawn(code)
        }
        pid = child
        toBrowser = input[1]
        fromBrowser = output[0]
        Thread.detachNewThread { [self] in readLoop() }
    }

    deinit { shutdown() }

    /// Ends the browser (politely, then by signal) and removes its profile.
    public func shutdown() {
        condition.lock()
        let wasClosed = closed
        closed = true
        condition.unlock()
        guard !wasClosed else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<50 where waitpid(pid, &status, WNOHANG) == 0 { usleep(100_000) }
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        close(toBrowser)
        close(fromBrowser)
        try? FileManager.default.removeItem(at: profile)
    }

    private func readLoop() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fromBrowser, &chunk, chunk.count)
            if n <= 0 { break }
            buffer += chunk[0..<n]
            while let end = buffer.firstIndex(of: 0) {
                let message = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                guard let json = (try? JSONSerialization.jsonObject(with: Data(message))) as? [String: Any] else { continue }
                condition.lock()
                if let id = json["id"] as? Int { replies[id] = json } else { events.append(json) }
                condition.broadcast()
                condition.unlock()
            }
        }
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sends one command (to the page once `open` attached one) and waits for its result.
    @discardableResult
    public func send(_ method: String, _ params: [String: Any] = [:], toPage: Bool = true, timeout: TimeInterval = 15) throws -> [String: Any] {
        condition.lock()
        nextId += 1
        let id = nextId
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if toPage, let session { message["sessionId"] = session }
        condition.unlock()
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        let written = bytes.withUnsafeBytes { write(toBrowser, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw Failure.protocolError("could not write \(method)") }
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while replies[id] == nil {
            if closed { throw Failure.protocolError("the browser exited during \(method)") }
            guard condition.wait(until: deadline) else { throw Failure.timeout(method) }
        }
        let reply = replies.removeValue(forKey: id)!
        if let error = reply["error"] as? [String: Any] { throw Failure.protocolError("\(method): \(error["message"] ?? error)") }
        return reply["result"] as? [String: Any] ?? [:]
    }

    /// Opens a page tab, runs `beforeLoad` in every document it loads before the page's own
    /// scripts (what a native host's bridge injection does), and navigates to `url`.
    public func open(_ url: String, beforeLoad: String? = nil) throws {
        let target = try send("Target.createTarget", ["url": "about:blank"], toPage: false)
        guard let targetId = target["targetId"] as? String else { throw Failure.protocolError("no target") }
        let attached = try send("Target.attachToTarget", ["targetId": targetId, "flatten": true], toPage: false)
        condition.lock()
        session = attached["sessionId"] as? String
        condition.unlock()
        try send("Page.enable")
        try send("Runtime.enable")
        if let beforeLoad { try send("Page.addScriptToEvaluateOnNewDocument", ["source": beforeLoad]) }
        try send("Page.navigate", ["url": url])
    }

    /// Denies (or grants) the camera for `origin`.
    public func setCameraPermission(origin: String, granted: Bool) throws {
        try send("Browser.setPermission", ["permission": ["name": "camera"], "setting": granted ? "granted" : "denied", "origin": origin],
                 toPage: false)
    }

    /// Evaluates `expression` in the page and returns its JSON value.
    public func evaluate(_ expression: String) throws -> Any? {
        let result = try send("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] { throw Failure.protocolError("script failed: \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Evaluates `expression` in the child frame whose URL starts with `urlPrefix` (in an
    /// isolated world: the frame's DOM, not its script variables).
    public func evaluate(_ expression: String, inFrameWithURLPrefix urlPrefix: String) throws -> Any? {
        func find(_ node: [String: Any]) -> String? {
            if let frame = node["frame"] as? [String: Any], (frame["url"] as? String)?.hasPrefix(urlPrefix) == true { return frame["id"] as? String }
            return ((node["childFrames"] as? [[String: Any]]) ?? []).lazy.compactMap(find).first
        }
        guard let tree = try send("Page.getFrameTree")["frameTree"] as? [String: Any], let frameId = find(tree) else {
            throw Failure.protocolError("no frame at \(urlPrefix)")
        }
        let world = try send("Page.createIsolatedWorld", ["frameId": frameId, "worldName": "vigil-test"])
        guard let context = world["executionContextId"] as? Int else { throw Failure.protocolError("no execution context") }
        let result = try send("Runtime.evaluate", ["expression": expression, "contextId": context, "returnByValue": true])
        if let exception = result["exceptionDetails"] { throw Failure.protocolError("script failed: \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Evaluates `expression` until it is true, or throws after `timeout`.
    public func wait(for expression: String, timeout: TimeInterval, what: String) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if (try? evaluate(expression)) as? Bool == true { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw Failure.timeout(what)
    }

    /// A PNG of the page as it is shown.
    public func screenshot() throws -> Data {
        let shot = try send("Page.captureScreenshot", ["format": "png"])
        guard let data = (shot["data"] as? String).flatMap({ Data(base64Encoded: $0) }) else { throw Failure.protocolError("no screenshot") }
        return data
    }

    /// Console messages and uncaught exceptions seen so far (for failure reports).
    public var consoleMessages: [String] {
        condition.lock()
        defer { condition.unlock() }
        return events.compactMap { event in
            let params = event["params"] as? [String: Any]
            switch event["method"] as? String {
            case "Runtime.consoleAPICalled":
                return ((params?["args"] as? [[String: Any]]) ?? []).map { "\($0["value"] ?? $0["description"] ?? "")" }.joined(separator: " ")
            case "Runtime.exceptionThrown":
                return "exception: \((params?["exceptionDetails"] as? [String: Any])?["exception"] ?? params ?? [:])"
            default: return nil
            }
        }
    }
}

import Foundation
import VigilCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The SDK's entry point: initialise once, then run liveness checks and read device data.
/// Main-actor isolated: call it from UI code; the capture itself runs off the main actor.
@MainActor public final class VigilClient {
    /// The shared client.
    public static let shared = VigilClient()

    /// This SDK's version.
    public static let sdkVersion = VigilVersion.current

    private var config: VigilConfig?
    private var deviceId: String?
    /// What `/healthz` said at `prewarm`.
    private var server: (version: String, engineVersion: String)?
    private var active: Task<Void, Never>?
    /// Which capture `active` is: one stopped and replaced must not clear its successor's mark.
    private var activeId: UUID?
    private let deviceIds: DeviceIdStore

    /// A client of its own (apps use `shared`; tests make their own).
    public init(deviceIdStore file: URL? = nil) {
        deviceIds = file.map(DeviceIdStore.init(file:)) ?? .standard
    }

    /// Whether `initialize` succeeded and `stop` was not called since.
    public var isInitialized: Bool { config != nil }

    /// Versions and the device id, for support.
    public var versionInfo: VigilVersionInfo {
        VigilVersionInfo(sdkVersion: Self.sdkVersion, apiVersion: "v1", deviceId: deviceId, serverVersion: server?.version, engineVersion: server?.engineVersion)
    }

    /// Checks and keeps `config`; loads the device id (best effort).
    public func initialize(config: VigilConfig) async throws(VigilInitError) {
        guard self.config == nil else { throw .alreadyInitialized }
        if let problem = config.problem() { throw .invalidConfiguration(problem) }
        self.config = config
        deviceId = try? deviceIds.load()
        config.logger?.log("info", "initialised for \(config.serverURL.host ?? "?")")
    }

    /// Opens a connection to the server ahead of time so the first frame does not pay for it,
    /// reads its versions for `versionInfo`, and lets `host` load the page's assets; runs no
    /// device checks.
    public func prewarm(host: (any VigilCaptureHost)? = nil) async {
        guard let config else { return }
        await host?.prewarm(serverURL: config.serverURL, locale: config.locale)
        var request = URLRequest(url: config.serverURL.appendingPathComponent("healthz"), timeoutInterval: 5)
        request.httpMethod = "GET"
        struct Health: Decodable { let version: String, engineVersion: String }
        guard let (data, _) = try? await URLSession.shared.data(for: request), let health = try? JSONDecoder().decode(Health.self, from: data),
              self.config != nil else { return }
        server = (health.version, health.engineVersion)
    }

    /// The `ssid` the app sends its backend: the device id and the integrity verdict. Best
    /// effort: a failure inside gives `.success` with an empty `ssid`; only "not initialised" fails.
    public func getSessionData() async -> Result<VigilSessionData, VigilError> {
        guard let config else { return .failure(.notInitialized) }
        guard let id = deviceId ?? (try? deviceIds.load()) else { return .success(VigilSessionData(ssid: "")) }
        deviceId = id
        let integrity: DeviceSessionData.Integrity = config.enableSecurity ? (DeviceSecurity.findings().isEmpty ? .clean : .flagged) : .unchecked
        return .success(VigilSessionData(ssid: DeviceSessionData(deviceId: id, integrity: integrity).ssid))
    }

    /// Runs one liveness check with `host`: `.loading`, then `.success` with what the server
    /// signed, or `.error`; then the stream ends. One at a time.
    public func startLivenessCheck(host: any VigilCaptureHost, sessionId: String, sessionToken: String) -> AsyncStream<VigilLivenessState> {
        let (stream, continuation) = AsyncStream.makeStream(of: VigilLivenessState.self)
        guard let config else {
            continuation.yield(.error(.notInitialized))
            continuation.finish()
            return stream
        }
        guard active == nil else {
            continuation.yield(.error(.captureAlreadyActive))
            continuation.finish()
            return stream
        }
        let api = DeviceAPIClient(serverURL: config.serverURL, token: sessionToken)
        let enableSecurity = config.enableSecurity
        let session = VigilCaptureSession(serverURL: config.serverURL, sessionId: sessionId, api: api, locale: config.locale,
                                          pollInterval: config.pollInterval, securityInterval: config.securityInterval,
                                          security: { enableSecurity ? DeviceSecurity.findings() : [] }, logger: config.logger,
                                          deviceId: deviceId)
        let locale = config.locale, logger = config.logger
        continuation.yield(.loading)
        let capture = UUID()
        activeId = capture
        active = Task { [weak self] in
            let state = await Self.run(host: host, session: session, locale: locale)
            if case .error(let error) = state { logger?.log(error == .userCancelled ? "info" : "error", "capture ended: \(error)") }
            continuation.yield(state)
            continuation.finish()
            if let self, self.activeId == capture {
                self.active = nil
                self.activeId = nil
            }
        }
        continuation.onTermination = { [weak self] reason in
            if case .cancelled = reason { Task { @MainActor in if self?.activeId == capture { self?.active?.cancel() } } }
        }
        return stream
    }

    /// Ends any capture and forgets the configuration and device id held in memory;
    /// `initialize` then behaves as the first time.
    public func stop() {
        active?.cancel()
        active = nil
        activeId = nil
        config = nil
        deviceId = nil
        server = nil
    }

    private nonisolated static func run(host: any VigilCaptureHost, session: VigilCaptureSession, locale: String) async -> VigilLivenessState {
        do {
            try await host.capture(session)
        } catch {
            if case .securityException = error { return .error(error) }   // nothing more is sent
            if Task.isCancelled { return .error(.userCancelled) }
            return .error(error)
        }
        let status: DeviceAPIClient.Status
        switch await readOutcome(session) {
        case .success(let read): status = read
        case .failure(let error): return .error(error)
        }
        guard status.status == "completed", let outcome = status.outcome, let signed = status.signedResult else {
            if status.status == "cancelled" { return .error(.userCancelled) }
            return .error(.sessionNotCompleted(status: status.status, message: "the session ended without a result"))
        }
        let message = outcome == "passed" ? Self.passedText(locale) : Self.failedText(locale)
        let payload = (try? CompactJWS(parsing: signed)).flatMap { try? JSONDecoder().decode(VerdictPayload.self, from: Data($0.payload)) }
        return .success(VigilResult(outcome: outcome, message: message, feedback: status.feedback ?? [], signedResult: signed, auditImage: nil,
                                    document: payload?.document))
    }

    /// Tries at reading the outcome of a capture that ended: 0.5, 1, 2 and 4 s apart.
    nonisolated static let outcomeReadAttempts = 5

    /// The status of a capture that ended. The host saw it final, but the node that answered
    /// may be gone since (a load balancer answers 502 meanwhile), so a network failure is tried
    /// again a few times: counted, not timed, so a busy or suspended app still gets its tries.
    private nonisolated static func readOutcome(_ session: VigilCaptureSession) async -> Result<DeviceAPIClient.Status, VigilError> {
        var failure = VigilError.networkError("the outcome could not be read")
        for attempt in 0..<outcomeReadAttempts {
            if attempt > 0 { try? await Task.sleep(for: .milliseconds(500 << (attempt - 1))) }
            do {
                return .success(try await session.api.status())
            } catch let refusal as DeviceAPIClient.Refusal where refusal.errorCode == .invalidToken {
                return .failure(.invalidToken)
            } catch {
                failure = .networkError("\(error)")
            }
        }
        return .failure(failure)
    }

    private nonisolated static func passedText(_ locale: String) -> String {
        ["en": "Verification complete", "pt-BR": "Verificação concluída", "es": "Verificación completada", "fr": "Vérification terminée",
         "zh-Hans": "验证完成"][locale] ?? "Verification complete"
    }

    private nonisolated static func failedText(_ locale: String) -> String {
        ["en": "We could not verify you", "pt-BR": "Não foi possível verificar você", "es": "No pudimos verificarte",
         "fr": "Nous n'avons pas pu vous vérifier", "zh-Hans": "无法完成验证"][locale] ?? "We could not verify you"
    }
}

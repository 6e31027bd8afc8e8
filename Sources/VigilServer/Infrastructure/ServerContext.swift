import Foundation
import Synchronization
import VigilCore
import VigilFace
import VigilLiveness
import VigilStore

/// What every handler works with: the store, the signer, live engines, analyzers, settings.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    private let base = Mutex("")
    let store: any Store
    let signer: VerdictSigner
    let live = LiveSessions()
    let statusAnswers = StatusCache()
    private let analyzerPool: AnalyzerPool?
    let metrics = Metrics()
    let logger: any Logger
    /// Where the server reads the time.
    let clock: any ServerClock
    /// Request rate limits (the HTTP layer applies them).
    let perIP: RateLimiter, perAPIKey: RateLimiter, perToken: RateLimiter, authFailures: RateLimiter
    /// Which frames this node serves now.
    let admission: FrameAdmission
    /// Which document reads this node takes on now.
    let documents = DocumentAdmission()

    init(configuration: ServerConfiguration, store: any Store, signer: VerdictSigner, analyzers: AnalyzerPool?, clock: any ServerClock, logger: any Logger) {
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
        let limits = configuration.rateLimits
        perIP = RateLimiter(.init(burst: limits.perIP.burst, perSecond: limits.perIP.perSecond))
        perAPIKey = RateLimiter(.init(burst: limits.perAPIKey.burst, perSecond: limits.perAPIKey.perSecond))
        perToken = RateLimiter(.init(burst: limits.perSessionToken.burst, perSecond: limits.perSessionToken.perSecond))
        authFailures = RateLimiter(.init(burst: limits.authFailuresPerIP.burst, perSecond: limits.authFailuresPerIP.perSecond))
        admission = FrameAdmission(threads: configuration.threads, capacity: configuration.frameCapacity)
        self.store = store
        self.signer = signer
        analyzerPool = analyzers
    }

    /// The public base URL (set once the port is known, before the first request).
    var baseURL: String {
        get { base.withLock { $0 } }
        set { base.withLock { $0 = newValue } }
    }

    /// The capture of open sessions over this context.
    var capture: CaptureService { CaptureService(context: self) }
    /// How sessions start and end over this context.
    var lifecycle: SessionLifecycle { SessionLifecycle(context: self) }
    /// The sessions' document step over this context.
    var documentStep: DocumentStep { DocumentStep(context: self) }

    /// A store call, its failure answered as 503 (the database is the server's problem, not the caller's).
    func stored<T>(_ body: () throws(StoreError) -> T) throws(ServiceError) -> T {
        do {
            return try body()
        } catch .staleVersion {
            throw ServiceError(.concurrentUpdate, "the session changed meanwhile; retry")
        } catch {
            throw ServiceError(.storageUnavailable, "the database could not complete the request", cause: "\(error)")
        }
    }

    /// The face analyzers; a server made without them (tests of what needs no face) refuses
    /// what does.
    func analyzers() throws(ServiceError) -> AnalyzerPool {
        guard let analyzerPool else { throw ServiceError(.notReady, "this server has no face analyzers") }
        return analyzerPool
    }

    /// The copy of a session's result signed for the device (`VerdictPayload.forDevice`), nil
    /// until it is decided. Ed25519 signatures are deterministic: the same result gives the same
    /// copy on every node and every poll, while its key is the active one.
    func deviceSignedResult(_ verdict: VerdictPayload?) throws(ServiceError) -> String? {
        try verdict.map { (verdict) throws(ServiceError) in try sign(verdict.forDevice).jws }
    }

    /// `payload` signed with the active key: its JSON and compact JWS.
    func sign(_ payload: VerdictPayload) throws(ServiceError) -> (json: [UInt8], jws: String) {
        do {
            return try signer.sign(payload)
        } catch {
            throw ServiceError(.signingFailed, "the result could not be signed", cause: "\(error)")
        }
    }
}

import Foundation
import VigilHTTP

/// How a Vigil server runs.
public struct ServerConfiguration: Sendable {
    /// Address and port to listen on (port 0 picks one).
    public var host = "127.0.0.1", port: UInt16 = 8080
    /// Where the SQLite database lives.
    public var dataDirectory: URL
    /// The public base URL for capture links and the result's `iss` (default `http://host:port`).
    public var baseURL: String?
    /// HTTP threads, and as many worker threads for frames, comparisons and reference photos,
    /// each with its own face analyzer.
    public var threads = 2
    /// Connections one client address may hold at once (0: no limit). Behind a reverse proxy
    /// every client arrives from the proxy's address: raise it there, or set 0.
    public var connectionsPerAddress = 64
    /// Frames a second this node serves before it refuses new sessions and sheds frames
    /// (`FrameAdmission`); nil measures it from the frames it serves.
    public var frameCapacity: Double?
    /// A frame that waited longer than this (seconds) for a worker is shed unanalysed (503
    /// `server_busy`): its guidance would come too late, and fresher frames follow. nil: never.
    public var maxFrameWait: Double? = 0.15
    /// Session lifetime from creation.
    public var sessionLifetime: TimeInterval = 600
    /// How long audit images and reference faces are kept (the purge runs in the background).
    public var retention: TimeInterval = 7 * 24 * 3600
    /// Whether webhooks may target private, loopback and link-local addresses.
    public var allowPrivateWebhooks = false
    /// Request limits per IP, API key and session token.
    public var rateLimits = RateLimits()
    /// The bearer token `/metrics` asks for; without one, only loopback peers may scrape it.
    public var metricsToken: String?
    /// Whether the demo tenant's `/demo` page is served (to loopback clients; `vigil serve
    /// --demo`, which `scripts/run` passes). Off by default: where a reverse proxy runs on the
    /// same host, every visitor looks like a loopback one unless it is a trusted proxy.
    public var demo = false
    /// Peers (load balancers, reverse proxies) whose X-Forwarded-For names the client for rate
    /// limits, lock-outs and logs. Limits are per node: each node counts what it sees.
    public var trustedProxies: [IPRange] = []
    /// Whether frames whose capture clock runs ahead of their arrival fail the attempt
    /// (`captureClock`). Off only where capture time is simulated faster than real time (tests
    /// that replay timelines).
    public var checkCaptureClock = true

    /// A configuration storing data in `dataDirectory`.
    public init(dataDirectory: URL) { self.dataDirectory = dataDirectory }
}

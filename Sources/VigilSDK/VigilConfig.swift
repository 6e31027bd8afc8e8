import Foundation

/// How the SDK talks to a Vigil server; everything but `serverURL` has a default.
public struct VigilConfig: Sendable {
    /// The Vigil server's base URL (http only for loopback).
    public var serverURL: URL
    /// Run the device security checks before and during capture.
    public var enableSecurity: Bool
    /// Language of `VigilError.userMessage` and of the hosted page (en, pt-BR, es, fr, zh-Hans).
    public var locale: String
    /// Seconds between status polls while the server decides (the SPEC's 2 s).
    public var pollInterval: TimeInterval
    /// Seconds between security checks during capture.
    public var securityInterval: TimeInterval
    /// Where the SDK writes what it does (nothing personal: no tokens, no frames).
    public var logger: (any VigilLogger)?

    /// A configuration for `serverURL`.
    public init(serverURL: URL, enableSecurity: Bool = true, locale: String = "en", pollInterval: TimeInterval = 2,
                securityInterval: TimeInterval = 3, logger: (any VigilLogger)? = nil) {
        self.serverURL = serverURL
        self.enableSecurity = enableSecurity
        self.locale = locale
        self.pollInterval = pollInterval
        self.securityInterval = securityInterval
        self.logger = logger
    }

    /// Why the configuration cannot be used, or nil.
    func problem() -> String? {
        guard let scheme = serverURL.scheme?.lowercased(), let host = serverURL.host, !host.isEmpty else { return "serverURL must be an absolute http(s) URL" }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
        guard scheme == "https" || (scheme == "http" && loopback) else { return "serverURL must be https (http only for loopback)" }
        guard (0.1...60).contains(pollInterval) else { return "pollInterval must be 0.1-60 s" }
        guard (0.5...60).contains(securityInterval) else { return "securityInterval must be 0.5-60 s" }
        guard VigilError.locales.contains(locale) else { return "locale must be one of \(VigilError.locales.joined(separator: ", "))" }
        return nil
    }
}

/// Receives the SDK's log lines.
public protocol VigilLogger: Sendable {
    /// One line at `level` ("debug", "info", "error").
    func log(_ level: String, _ message: String)
}

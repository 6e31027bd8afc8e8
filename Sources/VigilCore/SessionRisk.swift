/// Risk signals gathered around a session, stored with it and published in its signed result.
public struct SessionRisk: Codable, Hashable, Sendable {
    /// Failed sessions of the same `ssid` shortly before this one was created.
    public struct Velocity: Codable, Hashable, Sendable {
        /// Failed sessions found in the window.
        public var failedSessions: Int
        /// The window looked at (seconds before creation).
        public var windowSeconds: Int
        /// Whether they made the session's policy one step stricter than the tenant asked.
        public var raised: Bool

        /// A velocity signal.
        public init(failedSessions: Int, windowSeconds: Int, raised: Bool) {
            self.failedSessions = failedSessions
            self.windowSeconds = windowSeconds
            self.raised = raised
        }
    }

    /// The velocity signal, when the session carried an `ssid`.
    public var velocity: Velocity?

    /// Signals.
    public init(velocity: Velocity? = nil) {
        self.velocity = velocity
    }
}

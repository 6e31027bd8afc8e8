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

    /// Where the device said it was, when the session asked (`collectLocation`).
    public struct Location: Codable, Hashable, Sendable {
        /// What came of asking.
        public enum Status: String, Codable, Sendable {
            /// A position was given.
            case granted
            /// The person or the browser refused.
            case denied
            /// No answer within the page's time limit.
            case timeout
            /// The device could not tell.
            case unavailable
            /// Asked for, nothing reported before the session ended.
            case missing
        }
        /// What came of asking.
        public var status: Status
        /// WGS 84 degrees and the accuracy radius in metres, when granted.
        public var latitude: Double?, longitude: Double?, accuracyMeters: Double?

        /// A location signal.
        public init(status: Status, latitude: Double? = nil, longitude: Double? = nil, accuracyMeters: Double? = nil) {
            self.status = status
            self.latitude = latitude
            self.longitude = longitude
            self.accuracyMeters = accuracyMeters
        }
    }

    /// The velocity signal, when the session carried an `ssid`.
    public var velocity: Velocity?
    /// The location signal, when the session asked for one.
    public var location: Location?

    /// Signals.
    public init(velocity: Velocity? = nil, location: Location? = nil) {
        self.velocity = velocity
        self.location = location
    }
}

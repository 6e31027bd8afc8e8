import Foundation

/// Where the server reads the time: session expiry, retention, arrival times, result dates.
/// Injected, so that tests move time on instead of sleeping.
public protocol ServerClock: Sendable {
    /// The current time.
    var now: Date { get }
}

/// The system's wall clock.
public struct SystemClock: ServerClock {
    /// The system clock.
    public init() {}
    /// `Date()`.
    public var now: Date { Date() }
}

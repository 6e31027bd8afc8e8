import Foundation
import Synchronization

/// Token buckets by key: each key holds up to `burst` requests and regains `perSecond` a second.
final class RateLimiter: Sendable {
    /// A bucket's size and refill rate.
    struct Limit: Sendable {
        var burst: Double, perSecond: Double
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let limit: Limit
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Buckets kept at most; the oldest half is dropped past it (a full bucket is the default).
    private let maxKeys = 100_000

    init(_ limit: Limit) { self.limit = limit }

    /// The seconds until `key`'s bucket has a request again, nil when it has one now (nothing taken).
    func wait(_ key: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        buckets.withLock { all in
            guard let bucket = all[key] else { return nil }
            let tokens = min(limit.burst, bucket.tokens + (now - bucket.updated) * limit.perSecond)
            return tokens >= 1 ? nil : max(1, Int(((1 - tokens) / limit.perSecond).rounded(.up)))
        }
    }

    /// Takes one request from `key`'s bucket: nil when allowed, otherwise the seconds until one is.
    func take(_ key: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        buckets.withLock { all in
            var bucket = all[key] ?? Bucket(tokens: limit.burst, updated: now)
            bucket.tokens = min(limit.burst, bucket.tokens + (now - bucket.updated) * limit.perSecond)
            bucket.updated = now
            defer {
                if all.count >= maxKeys, all[key] == nil {
                    let keep = all.sorted { $0.value.updated > $1.value.updated }.prefix(maxKeys / 2)
                    all = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
                }
                all[key] = bucket
            }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / limit.perSecond).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }
}

/// The limits a server applies (SPEC section 11).
public struct RateLimits: Sendable {
    /// Every request, by client IP.
    public var perIP = (burst: 600.0, perSecond: 300.0)
    /// Tenant API requests, by API key.
    public var perAPIKey = (burst: 200.0, perSecond: 50.0)
    /// Device API requests, by session token (frames at 10 fps plus polls).
    public var perSessionToken = (burst: 60.0, perSecond: 25.0)
    /// Failed authentications, by client IP: token and key guessing is throttled.
    public var authFailuresPerIP = (burst: 30.0, perSecond: 0.5)
    /// Whether limits apply at all (off only to measure raw capacity, as `scripts/bench` does).
    public var enabled = true

    /// The defaults above.
    public init() {}
}

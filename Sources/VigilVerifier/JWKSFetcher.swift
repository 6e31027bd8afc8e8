import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VigilCore

/// Fetches the server's `/.well-known/jwks.json` and caches it by `kid`: a result signed by a
/// known key needs no request; an unknown `kid` fetches the set again, at most once per
/// `minimumRefreshInterval`, so a flood of forged `kid`s cannot turn into a flood of requests.
/// Each fetch replaces the set, and a set older than `maximumAge` is fetched again even for a
/// known `kid`, so a key the server revoked stops verifying.
public actor JWKSFetcher {
    /// Loads the bytes at a URL (URLSession by default; a test may pass its own).
    public typealias Load = @Sendable (URL) async throws -> Data

    private let url: URL
    private let minimumRefreshInterval: TimeInterval
    private let maximumAge: TimeInterval
    private let load: Load
    private var keys: [String: JWK] = [:]
    private var lastFetch: Date?
    /// How many times the set was fetched (for monitoring).
    public private(set) var fetchCount = 0

    /// A fetcher for `url` (for example `https://vigil.example/.well-known/jwks.json`).
    public init(url: URL, minimumRefreshInterval: TimeInterval = 60, maximumAge: TimeInterval = 900, load: Load? = nil) {
        self.url = url
        self.minimumRefreshInterval = minimumRefreshInterval
        self.maximumAge = max(maximumAge, minimumRefreshInterval)
        self.load = load ?? { url in
            var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            let (data, response) = try await URLSession.shared.data(for: request)
            guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
                throw VerificationError.keySetUnavailable("the JWK set answered \((response as? HTTPURLResponse)?.statusCode ?? 0)")
            }
            return data
        }
    }

    /// The cached keys, fetched again first when `kid` is not among them and the last fetch is
    /// `minimumRefreshInterval` old, or when the last fetch is `maximumAge` old.
    public func keySet(containing kid: String) async throws(VerificationError) -> JWKSet {
        let age = lastFetch.map { Date().timeIntervalSince($0) } ?? .infinity
        if (keys[kid] == nil && age >= minimumRefreshInterval) || age >= maximumAge {
            lastFetch = Date()
            fetchCount += 1
            let data: Data
            do {
                data = try await load(url)
            } catch {
                throw error as? VerificationError ?? .keySetUnavailable("\(error)")
            }
            guard data.count <= 256 * 1024, let set = try? JSONDecoder().decode(JWKSet.self, from: data) else {
                throw .keySetUnavailable("the answer is not a JWK set")
            }
            // The set replaces the cache: retired keys stay in it, revoked ones leave it.
            keys = Dictionary(set.keys.map { ($0.kid, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return JWKSet(keys: keys.values.sorted { $0.kid < $1.kid })
    }
}

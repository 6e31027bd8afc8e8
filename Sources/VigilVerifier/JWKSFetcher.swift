import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VigilCore

/// Fetches the server's `/.well-known/jwks.json` and caches it by `kid`: a result signed by a
/// known key needs no request; an unknown `kid` fetches the set again, at most once per
/// `minimumRefreshInterval`, so a flood of forged `kid`s cannot turn into a flood of requests.
public actor JWKSFetcher {
    /// Loads the bytes at a URL (URLSession by default; a test may pass its own).
    public typealias Load = @Sendable (URL) async throws -> Data

    private let url: URL
    private let minimumRefreshInterval: TimeInterval
    private let load: Load
    private var keys: [String: JWK] = [:]
    private var lastFetch: Date?
    /// How many times the set was fetched (for monitoring).
    public private(set) var fetchCount = 0

    /// A fetcher for `url` (for example `https://vigil.example/.well-known/jwks.json`).
    public init(url: URL, minimumRefreshInterval: TimeInterval = 60, load: Load? = nil) {
        self.url = url
        self.minimumRefreshInterval = minimumRefreshInterval
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
    /// old enough.
    public func keySet(containing kid: String) async throws(VerificationError) -> JWKSet {
        if keys[kid] == nil, lastFetch.map({ Date().timeIntervalSince($0) >= minimumRefreshInterval }) ?? true {
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
            // Keys once seen stay: results signed before a rotation still verify.
            for key in set.keys { keys[key.kid] = key }
        }
        return JWKSet(keys: keys.values.sorted { $0.kid < $1.kid })
    }
}

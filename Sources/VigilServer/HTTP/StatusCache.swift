import Synchronization

/// Poll answers by session id and record version. A poll reads only the session's head; while
/// the version is the one an answer was made from, the answer is still true (every change to a
/// session, by any process, bumps the version), so the full row is not read or decoded again.
final class StatusCache: Sendable {
    /// Entries kept at most; past that the cache starts over (old sessions stop polling).
    static let capacity = 10_000

    private let answers = Mutex<[String: (version: Int, body: [UInt8])]>([:])

    /// The answer made from version `version` of session `id`, if cached.
    func answer(_ id: String, version: Int) -> [UInt8]? {
        answers.withLock { cached in cached[id].flatMap { $0.version == version ? $0.body : nil } }
    }

    /// Keeps `body` as the answer for version `version` of session `id`.
    func store(_ body: [UInt8], for id: String, version: Int) {
        answers.withLock { cached in
            if cached.count >= Self.capacity { cached.removeAll(keepingCapacity: true) }
            cached[id] = (version, body)
        }
    }
}

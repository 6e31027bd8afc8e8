import Foundation
import Testing
import VigilCore
import VigilFace
import VigilTestSupport
@testable import VigilServer

/// Erased and purged personal data leaves the database's files, not only its answers: the bytes
/// of a document photo and the document's number (as text, and as the signed result's base64)
/// are looked for in every file that holds the database, after `DELETE`, after the retention
/// purge and after shutdown.
@Suite(.serialized) struct ErasureTests {
    @Test func erasedAndPurgedDocumentsLeaveTheSQLiteFiles() throws {
        let t = try TestServer(checkCaptureClock: false)
        try expectErasedAndPurged(t) {
            ["vigil.sqlite", "vigil.sqlite-wal", "vigil.sqlite-shm"].map { t.data.appendingPathComponent($0) }
        }
    }

    /// On PostgreSQL the old versions of a session's row stay in the table's free space after
    /// `VACUUM`: the number is found in none, because they are sealed and their key is gone.
    /// A snapshot open as the erase runs (another query of the server at that moment) would keep
    /// the deleted photo in the table `VACUUM FULL` rewrites: the erase waits for it to end.
    @Test func erasedAndPurgedDocumentsLeaveThePostgreSQLFiles() throws {
        let database = try TestPostgres.newDatabase()
        let t = try TestServer(checkCaptureClock: false, database: database)
        try expectErasedAndPurged(t, beforeErasing: { try TestPostgres.holdSnapshot(database, for: 0.5) }) {
            try TestPostgres.files(of: database)
        }
    }

    /// Two sessions with a document each: one erased by `DELETE` while open, one finished and
    /// left to the purge.
    private func expectErasedAndPurged(_ t: TestServer, beforeErasing: () throws -> Void = {}, files: () throws -> [URL]) throws {
        let grace = try DocumentStepTests.fixture("grace_hopper.jpg")
        let numbers = ["Q7ZK4M2P9", "W3XJ8N6R2"]
        let photos = try numbers.map { try DocumentStepTests.passportJPEG(portrait: grace, number: $0) }
        func sessionWithDocument(_ index: Int) throws -> (id: String, token: String, traces: [[UInt8]]) {
            let (id, token) = t.createSession(DocumentStepTests.policy(["types": ["passport"], "matchFace": false]))
            #expect(DocumentStepTests().photo(t, token, photos[index]).json["captured"] as? Bool == true)
            #expect(try t.store.documentImage(sessionId: id) != nil)
            return (id, token, Self.windows(of: photos[index], notIn: photos[1 - index]) + Self.traces(of: numbers[index]))
        }
        func found(_ traces: [[UInt8]]) throws -> [String] {
            try files().filter { file in
                guard let bytes = try? Data(contentsOf: file) else { return false }
                return traces.contains { Self.contains(bytes, $0) }
            }.map(\.lastPathComponent)
        }
        // What the background writes (the purge; PostgreSQL's log writer, which the tests' server
        // lets lag behind commits) is waited for, up to 10 s.
        func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
            for _ in 0..<50 {
                if try condition() { return true }
                Thread.sleep(forTimeInterval: 0.2)
            }
            return try condition()
        }
        let erased = try sessionWithDocument(0)
        let purged = try sessionWithDocument(1)
        // Moved from the log into the database's pages, as SQLite does every 1,000 pages written
        // and PostgreSQL at every checkpoint: there, deleting rows alone leaves their bytes. (In
        // PostgreSQL's log a record is cut where a log page ends, wherever the other tests' writes
        // put it; its pages hold each piece of a photo whole.)
        try t.store.reclaim()
        // The files hold both photos while they are kept; the numbers never in the clear: the
        // session's row holds them sealed (`SessionSealing`).
        #expect(try eventually { try !found(erased.traces).isEmpty && !found(purged.traces).isEmpty })
        #expect(try found(numbers.flatMap(Self.traces)).isEmpty)

        try beforeErasing()
        #expect(t.request("DELETE", "/v1/sessions/\(erased.id)", bearer: t.apiKeys["a"]).status == 200)
        #expect(try found(erased.traces) == [], "erased by DELETE")
        #expect(try !found(purged.traces).isEmpty)

        // Finished now, past the retention period later: the purge deletes the photo and erases
        // the session's document fields and signed result, and the files are reclaimed.
        #expect(t.request("POST", "/v1/client/finish", bearer: purged.token).status == 200)
        t.clock.advance(by: 7 * 86400 + 1)
        #expect(try eventually { try found(purged.traces).isEmpty }, "purged past the retention period")
        let view = try #require(try t.store.session(id: purged.id, tenantId: t.tenantIds["a"]!))
        #expect(view.document?.documentNumber == nil && view.document?.type == "TD3" && view.verdict?.document?.documentNumber == nil)

        t.server.shutdown()
        #expect(try found(erased.traces + purged.traces) == [], "after shutdown")
    }

    /// The number as stored in JSON, and as base64url at each of the three alignments a signed
    /// result's payload may put it at (without the characters its neighbours share).
    private static func traces(of text: String) -> [[UInt8]] {
        let bytes = Array(text.utf8)
        return [bytes] + (0..<3).map { shift in
            let encoded = Array(Base64URL.encode([UInt8](repeating: 0x22, count: shift) + bytes).utf8)
            let skip = shift == 0 ? 0 : (shift * 4 + 2) / 3 + 1
            return Array(encoded[skip..<(encoded.count - 2)])
        }
    }

    /// Windows of 48 bytes of `photo` that `other` does not hold (the two pages differ only in
    /// the document's number, and their JPEGs share every byte before it), 4 KB apart from the
    /// end back: a database cuts a photo into pieces of about 2 KB, so some window lies whole in
    /// one, wherever the cuts fall.
    private static func windows(of photo: [UInt8], notIn other: [UInt8]) -> [[UInt8]] {
        var found: [[UInt8]] = [], end = photo.count - 2, last = Int.max
        let others = Data(other)
        while end > 48, found.count < 8 {
            let window = Array(photo[(end - 48)..<end])
            if last - end >= 4096, !contains(others, window) {
                found.append(window)
                last = end
            }
            end -= 48
        }
        return found
    }

    private static func contains(_ haystack: Data, _ needle: [UInt8]) -> Bool {
        haystack.range(of: Data(needle)) != nil
    }
}

import Foundation

/// What the capture screen shows when a frame is taken: the challenge and the flash colour.
public struct CaptureScreen: Sendable, Hashable {
    /// The challenge on screen (motion name and index) and when it appeared, ms on the capture clock.
    public var challenge: (index: Int, kind: String, shownAtMs: Int)? {
        get { challengeStorage.map { ($0.index, $0.kind, $0.shownAtMs) } }
        set { challengeStorage = newValue.map { Shown(index: $0.index, kind: $0.kind, shownAtMs: $0.shownAtMs) } }
    }
    /// The reflection colour filling the screen (`#rrggbb`), when one shows.
    public var flashColor: String?

    private struct Shown: Sendable, Hashable { let index: Int, kind: String, shownAtMs: Int }
    private var challengeStorage: Shown?

    /// A screen with nothing on it.
    public init() {}
}

/// One camera frame: JPEG bytes and the capture time (ms since capture start).
public struct CapturedFrame: Sendable {
    public let jpeg: [UInt8]
    public let timestampMs: Int

    /// A frame.
    public init(jpeg: [UInt8], timestampMs: Int) {
        self.jpeg = jpeg
        self.timestampMs = timestampMs
    }
}

/// Where `HeadlessCaptureHost` gets frames: a recording, or something that reacts to `screen`.
public protocol FrameSource: Sendable {
    /// The next frame, taken while `screen` shows; nil when the source has no more.
    /// `elapsedMs` is the capture clock now (live sources use it, recordings their own times).
    mutating func nextFrame(elapsedMs: Int, screen: CaptureScreen) throws -> CapturedFrame?
    /// Whether frames are sent at their recorded times (true) or as fast as the server answers.
    var isPaced: Bool { get }
}

/// Frames from a recorded session directory (docs/session-format.md: `session.json` listing
/// JPEG files with their capture times); played at their recorded pace.
public struct JPEGFolderSource: FrameSource {
    private let frames: [(url: URL, timestampMs: Int)]
    private var next = 0
    public var isPaced: Bool { true }

    /// Reads the frame list of `directory`; file names must stay inside it.
    public init(directory: URL) throws {
        struct Listing: Decodable { struct Frame: Decodable { let file: String, timestampMs: Int }; let frames: [Frame] }
        let listing: Listing
        do {
            listing = try JSONDecoder().decode(Listing.self, from: Data(contentsOf: directory.appendingPathComponent("session.json")))
        } catch {
            throw VigilError.unexpected("\(directory.path)/session.json: not a session listing (\(error))")
        }
        guard (1...3000).contains(listing.frames.count) else { throw VigilError.unexpected("a session lists 1-3000 frames") }
        var last = -1
        frames = try listing.frames.map { frame in
            guard !frame.file.isEmpty, !frame.file.contains("/"), !frame.file.contains("\\"), frame.file != "..", frame.file != "." else {
                throw VigilError.unexpected("frame file '\(frame.file)' must be a name inside the directory")
            }
            guard frame.timestampMs > last else { throw VigilError.unexpected("frame times must increase ('\(frame.file)')") }
            last = frame.timestampMs
            return (directory.appendingPathComponent(frame.file), frame.timestampMs)
        }
    }

    public mutating func nextFrame(elapsedMs: Int, screen: CaptureScreen) throws -> CapturedFrame? {
        guard next < frames.count else { return nil }
        defer { next += 1 }
        let bytes: [UInt8]
        do { bytes = [UInt8](try Data(contentsOf: frames[next].url)) } catch { throw VigilError.unexpected("cannot read \(frames[next].url.lastPathComponent)") }
        return CapturedFrame(jpeg: bytes, timestampMs: frames[next].timestampMs)
    }
}

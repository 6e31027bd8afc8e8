import Foundation
import VigilFace

/// A clip of a real face as frames on disk: `clip.json` (`{"fps": 25}`) and the frames as
/// JPEGs named in time order, as `scripts/eval-liveness --real` extracts them. Frames are
/// decoded when asked for.
public struct RecordedClip: Sendable {
    /// Why a clip could not be loaded.
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The clip's name (its folder's).
    public let name: String
    /// Frames a second.
    public let fps: Double
    /// The frames' JPEG bytes in time order.
    public let frames: [[UInt8]]

    /// Loads the clip in `directory`.
    public init(directory: URL) throws {
        struct Info: Decodable { let fps: Double }
        name = directory.lastPathComponent
        guard let info = try? JSONDecoder().decode(Info.self, from: Data(contentsOf: directory.appendingPathComponent("clip.json"))),
              info.fps > 0 else {
            throw Unreadable(description: "\(directory.path): no clip.json with its fps")
        }
        fps = info.fps
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".jpg") }.sorted()
        frames = try names.map { [UInt8](try Data(contentsOf: directory.appendingPathComponent($0))) }
        guard !frames.isEmpty else { throw Unreadable(description: "\(directory.path): no frames") }
    }

    /// A clip of `frames` at `fps` (tests).
    public init(name: String, fps: Double, frames: [[UInt8]]) {
        self.name = name
        self.fps = fps
        self.frames = frames
    }

    /// The clip's length in seconds.
    public var duration: Double { Double(frames.count) / fps }

    /// The index of the frame showing at `seconds` (clamped to the clip).
    public func index(at seconds: Double) -> Int {
        min(frames.count - 1, max(0, Int((seconds * fps).rounded(.down))))
    }
}

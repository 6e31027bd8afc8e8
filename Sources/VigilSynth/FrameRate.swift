/// A camera's frame rate as a ratio (frames per `seconds` seconds), as Y4M headers write it:
/// 7.5 fps is 15 frames per 2 seconds.
public struct FrameRate: Sendable, Hashable, CustomStringConvertible {
    /// Frames delivered every `seconds` seconds.
    public let frames: Int, seconds: Int

    /// A rate of `frames` per `seconds` seconds (both positive).
    public init(frames: Int, per seconds: Int = 1) {
        precondition(frames > 0 && seconds > 0, "a frame rate is positive")
        self.frames = frames
        self.seconds = seconds
    }

    /// Frames per second.
    public var perSecond: Double { Double(frames) / Double(seconds) }
    /// The capture time of frame `index` (ms, from 0).
    public func timestampMs(ofFrame index: Int) -> Int { index * 1000 * seconds / frames }
    /// "7.5 fps".
    public var description: String {
        let value = perSecond
        return (value == value.rounded() ? String(Int(value)) : String(value)) + " fps"
    }

    /// The rates a webcam or phone camera delivers, from a dim room (5 fps) to good light (30 fps).
    public static let cameraRates = [FrameRate(frames: 5), FrameRate(frames: 15, per: 2), FrameRate(frames: 10), FrameRate(frames: 15), FrameRate(frames: 30)]
}

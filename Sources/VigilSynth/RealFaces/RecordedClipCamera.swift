import VigilCore
import VigilFace

/// A real person's clip answering one prompt as a live camera would: until the prompt has been
/// on screen for a reaction time, the face rests (the clip's neutral stretch, played back and
/// forth); then the clip plays from a little before the annotated motion to its end, and its
/// last second goes back and forth until the capture ends.
public struct RecordedClipCamera: SyntheticCamera {
    /// How long before the annotated start the clip is picked up after the reaction time.
    public static let leadSeconds = 0.2

    let clip: RecordedClip
    let event: ClipAnnotation.Event
    let rest: ClipAnnotation.Interval
    let reactionMs: Int
    private var cache: (index: Int, buffer: PixelBuffer)?

    /// `clip` answering with `event`, resting on `rest` before it, `reactionMs` after the prompt.
    public init(clip: RecordedClip, event: ClipAnnotation.Event, rest: ClipAnnotation.Interval, reactionMs: Int) {
        self.clip = clip
        self.event = event
        self.rest = rest
        self.reactionMs = reactionMs
    }

    /// The clip's frame index at capture time `timestampMs`.
    func index(at timestampMs: Int, promptShownAtMs shown: Int?) -> Int {
        guard let shown, timestampMs >= shown + reactionMs else {
            return Self.backAndForth(from: clip.index(at: rest.start), to: clip.index(at: rest.end), step: timestampMs, fps: clip.fps)
        }
        let seconds = max(0, event.start - Self.leadSeconds) + Double(timestampMs - shown - reactionMs) / 1000
        guard seconds < clip.duration else {
            return Self.backAndForth(from: clip.index(at: clip.duration - 1), to: clip.frames.count - 1,
                                     step: Int((seconds - clip.duration) * 1000), fps: clip.fps)
        }
        return clip.index(at: seconds)
    }

    /// The frame `step` ms into playing `from...to` forth, back, forth...
    static func backAndForth(from: Int, to: Int, step: Int, fps: Double) -> Int {
        let span = max(0, to - from)
        guard span > 0 else { return from }
        let k = Int(Double(step) / 1000 * fps) % (2 * span)
        return from + (k <= span ? k : 2 * span - k)
    }

    public mutating func frame(at timestampMs: Int, screen: ScreenState) -> PixelBuffer {
        let index = index(at: timestampMs, promptShownAtMs: screen.prompt?.shownAtMs)
        if let cache, cache.index == index { return cache.buffer }
        let buffer = (try? Image(encoded: clip.frames[index])).map(PixelBuffer.init) ?? PixelBuffer(width: 2, height: 2)
        cache = (index, buffer)
        return buffer
    }
}

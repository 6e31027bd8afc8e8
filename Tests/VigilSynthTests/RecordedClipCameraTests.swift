import Foundation
import Testing
import VigilCore
import VigilFace
@testable import VigilSynth

/// A real person's clip answers a prompt as a live camera: resting until the prompt has been on
/// screen for the reaction time, then the annotated motion from a little before its start.
@Suite struct RecordedClipCameraTests {
    /// A clip of `count` frames at 10 fps, frame k a flat grey of k.
    static func clip(count: Int) throws -> RecordedClip {
        let frames = try (0..<count).map { k in try Image(rgb: [UInt8](repeating: UInt8(k), count: 8 * 8 * 3), width: 8, height: 8).pngData() }
        return RecordedClip(name: "grey", fps: 10, frames: frames)
    }

    @Test func theFaceRestsUntilThePromptThenThePersonMakesTheAnnotatedMotion() throws {
        let event = ClipAnnotation.Event(motion: "blink", start: 2.0, peak: 2.1, end: 2.3, note: nil)
        let camera = RecordedClipCamera(clip: try Self.clip(count: 40), event: event, rest: .init(start: 0.5, end: 1.0), reactionMs: 500)
        // Before the prompt and during the reaction time: the rest's frames, forth and back.
        let resting = (0..<35).map { camera.index(at: $0 * 100, promptShownAtMs: $0 < 30 ? nil : 3000) }
        #expect(resting.allSatisfy { (5...10).contains($0) } && Set(resting).count == 6)
        #expect(camera.index(at: 3400, promptShownAtMs: 3000) != 18)
        // Then from 0.2 s before the motion, at the clip's own pace.
        #expect(camera.index(at: 3500, promptShownAtMs: 3000) == 18)
        #expect(camera.index(at: 3800, promptShownAtMs: 3000) == 21)
        // Past the clip's end, its last second forth and back.
        let tail = (0..<40).map { camera.index(at: 6000 + $0 * 100, promptShownAtMs: 3000) }
        #expect(tail.allSatisfy { (30...39).contains($0) } && tail.contains(30) && tail.contains(39))
    }

    @Test func aClipFolderNeedsItsFrameRate() throws {
        #expect(throws: RecordedClip.Unreadable.self) { try RecordedClip(directory: URL(fileURLWithPath: "/nonexistent-clip")) }
    }
}

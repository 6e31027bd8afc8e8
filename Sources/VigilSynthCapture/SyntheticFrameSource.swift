import VigilCore
import VigilFace
import VigilSDK
import VigilSynth

/// Something synthetic in front of a headless "camera" (`vigil capture --synthetic`, tests): it
/// sees what `HeadlessCaptureHost` says the screen shows, the challenge and the reflection
/// colour, and renders the next frame 100 ms of capture time later. Its own module because it
/// joins the renderer (dlib, tooling) to the SDK protocol, and neither may depend on the other.
// @unchecked: the renderers hold images by value but are not marked Sendable; each capture
// takes its own copy of the source and uses it from its one task.
public struct SyntheticFrameSource: FrameSource, @unchecked Sendable {
    private var camera: any SyntheticCamera
    private var random: SynthRandom
    private var nextMs = 0
    private let durationMs: Int
    /// Frames at camera pace (10 a second), or as fast as the server answers.
    public let isPaced: Bool

    /// Frames of `camera` for `durationMs` of capture time; sensor noise from `seed`.
    public init(camera: any SyntheticCamera, seed: UInt64, durationMs: Int = 30_000, paced: Bool = true) {
        self.camera = camera
        self.random = SynthRandom(seed: seed)
        self.durationMs = durationMs
        self.isPaced = paced
    }

    /// A cooperating person, or one of the attacks that only change what is in front of the
    /// camera (prints, a screen, a looped video); nil for species that tamper with the feed.
    public init?(species: Species, rig: FaceRig, seed: UInt64, durationMs: Int = 30_000, paced: Bool = true) {
        let camera: any SyntheticCamera
        switch species {
        case .live: camera = SyntheticPerson(rig: rig, light: .live(strength: 0.15), seed: seed)
        case .videoLoop: camera = SyntheticPerson(rig: rig, behaviour: .loop, light: .none, seed: seed)
        default:
            guard let medium = PhotoAttack.Medium(species) else { return nil }
            camera = PhotoAttack(rig: rig, medium: medium, seed: seed)
        }
        self.init(camera: camera, seed: seed, durationMs: durationMs, paced: paced)
    }

    public mutating func nextFrame(elapsedMs: Int, screen: CaptureScreen) throws -> CapturedFrame? {
        // A camera at its pace skips the frames it could not send: the next one is taken now.
        if isPaced { nextMs = max(nextMs, elapsedMs) }
        guard nextMs < durationMs else { return nil }
        var state = ScreenState()
        if let c = screen.challenge, let kind = Motion(rawValue: c.kind) { state.prompt = (c.index, kind, c.shownAtMs) }
        if let hex = screen.flashColor, hex.hasPrefix("#"), let value = UInt32(hex.dropFirst(), radix: 16) {
            state.color = (Double(value >> 16 & 255) / 255, Double(value >> 8 & 255) / 255, Double(value & 255) / 255)
        }
        var pixels = camera.frame(at: nextMs, screen: state)
        pixels.addNoise(sigma: 2, using: &random)
        defer { nextMs += 100 }
        return CapturedFrame(jpeg: pixels.image().jpegData(quality: 85), timestampMs: nextMs)
    }
}

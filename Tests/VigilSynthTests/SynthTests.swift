import Foundation
import Testing
import VigilCore
import VigilFace
import VigilLiveness
@testable import VigilSynth

/// Shared models and a rig of a real photo (scripts/setup puts both in place).
enum SynthFixtures {
    static let models = try! FaceModels()
    static var fixtures: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["VIGIL_FIXTURES"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vigil/fixtures").path)
    }
    static func rig(_ name: String, analyzer: FaceAnalyzer) throws -> FaceRig {
        try FaceRig(photo: try Image(contentsOf: fixtures.appendingPathComponent(name)), name: name, analyzer: analyzer)
    }

    /// The face `analyzer` finds in `rig`'s render of the neutral face as `change` leaves it.
    static func face(_ rig: FaceRig, _ analyzer: FaceAnalyzer, _ change: (inout FaceState) -> Void) throws -> FaceObservation {
        var state = FaceState()
        change(&state)
        return try #require(analyzer.detect(in: rig.render(state).frame.image()).first)
    }
}

@Suite(.serialized) struct SynthTests {
    @Test func delaunayTrianglesTileTheConvexHull() {
        var random = SynthRandom(seed: 5)
        var points = [Point2D(x: 0, y: 0), Point2D(x: 100, y: 0), Point2D(x: 100, y: 100), Point2D(x: 0, y: 100)]
        for _ in 0..<60 { points.append(Point2D(x: random.uniform(1...99), y: random.uniform(1...99))) }
        let triangles = Delaunay.triangulate(points)
        let area = triangles.reduce(0.0) { $0 + Delaunay.cross(points[$1.0], points[$1.1], points[$1.2]) / 2 }
        #expect(abs(area - 10_000) < 1e-6)
        #expect(triangles.allSatisfy { Delaunay.cross(points[$0.0], points[$0.1], points[$0.2]) > 0 })
        #expect(triangles.count == 2 * points.count - 2 - 4)   // 2n - 2 - hull points
    }

    @Test func aRenderedTurnReadsAsATurnTheSameWay() throws {
        let analyzer = try FaceAnalyzer(models: SynthFixtures.models)
        let rig = try SynthFixtures.rig("obama.jpg", analyzer: analyzer)
        func yaw(_ degrees: Double) throws -> Double {
            var state = FaceState()
            state.yaw = degrees
            let face = try #require(analyzer.detect(in: rig.render(state).frame.image()).first)
            return face.pose.yaw
        }
        let neutral = try yaw(0), left = try yaw(20), right = try yaw(-20)
        #expect(left - neutral > 8, "person's left turn reads as positive yaw")
        #expect(neutral - right > 8, "person's right turn reads as negative yaw")
    }

    @Test func closedEyesAndAnOpenJawMoveTheirMeasures() throws {
        let analyzer = try FaceAnalyzer(models: SynthFixtures.models)
        let rig = try SynthFixtures.rig("biden.jpg", analyzer: analyzer)
        func face(_ change: (inout FaceState) -> Void) throws -> FaceObservation { try SynthFixtures.face(rig, analyzer, change) }
        let neutral = try face { _ in }, shut = try face { $0.eyesClosed = 1 }, open = try face { $0.jawOpen = 1 }
        let eyes = { (f: FaceObservation) in (f.eyes.left + f.eyes.right) / 2 }
        #expect(eyes(shut) < eyes(neutral) * 0.8)
        #expect(open.mouth - neutral.mouth > 0.2)
    }

    /// This subject's eyes barely closed in the 68 points (the evaluation's most rejected blink);
    /// the mesh closes them (eye aspect ratio 0.29 of open), and both eyes still lose detail
    /// (to 0.65-0.8 of open, by how the face is cropped), while a turned head does not dim them.
    @Test func shutEyesLoseDetailInBothEyesAndATurnedHeadDoesNot() throws {
        let analyzer = try FaceAnalyzer(models: SynthFixtures.models)
        let rig = try SynthFixtures.rig("obama-rgba.png", analyzer: analyzer)
        let open = try SynthFixtures.face(rig, analyzer) { _ in }, shut = try SynthFixtures.face(rig, analyzer) { $0.eyesClosed = 1 }
        let turned = try #require(try SynthFixtures.face(rig, analyzer) { $0.yaw = 30 }.eyeDetail)
        let (openDetail, shutDetail) = (try #require(open.eyeDetail), try #require(shut.eyeDetail))
        let thresholds = MotionThresholds.standard
        #expect(max(shut.eyes.left / open.eyes.left, shut.eyes.right / open.eyes.right) < thresholds.eyesClosedRatio, "open \(open.eyes), shut \(shut.eyes)")
        #expect(max(shutDetail.left / openDetail.left, shutDetail.right / openDetail.right) < 0.85, "open \(openDetail), shut \(shutDetail)")
        #expect(max(turned.left / openDetail.left, turned.right / openDetail.right) > thresholds.eyeDetailShutRatio, "open \(openDetail), turned \(turned)")
    }

    /// A person resting in front of a portrait phone camera, scaled as the page scales it: the
    /// detector's box flips between two pyramid steps from frame to frame, and the face must
    /// still read as resting in every frame (it once read a mouth open and a nod, and the 5 fps
    /// portrait browser test failed on a motion nobody made).
    @Test func aRestingFaceReadsAsRestingInEveryPortraitFrame() throws {
        let analyzer = try FaceAnalyzer(models: SynthFixtures.models)
        let rig = try FaceRig(photo: try Image(contentsOf: SynthFixtures.fixtures.appendingPathComponent("grace_hopper.jpg")), name: "grace",
                              analyzer: analyzer, width: 360, height: 640, faceHeight: 0.3)
        var person = SyntheticPerson(rig: rig, light: .none, seed: 5)
        var mouths: [Double] = [], pitches: [Double] = []
        for ms in stride(from: 0, to: 8000, by: 200) {
            let frame = person.frame(at: ms, screen: ScreenState()).resampled(width: 720, height: 1280).resampled(width: 480, height: 853)
            let face = try #require(analyzer.detect(in: try Image(encoded: frame.image().jpegData(quality: 85))).first, "at \(ms) ms")
            mouths.append(face.mouth)
            pitches.append(face.pose.pitch)
        }
        #expect(mouths.max()! < 0.1, "\(mouths)")
        #expect(pitches.max()! - pitches.min()! < 7, "\(pitches)")
    }

    /// A resting person's head wanders no further when frames come seconds apart (a loaded
    /// server answering slowly): over 40 frames 5 s apart its measured yaw deviates by under 2
    /// degrees (1.1 here; 0.8 over frames 1 s apart). With the wander stepped as if every gap
    /// were short it was 3.1.
    @Test func theHeadStraysNoFurtherWhenFramesComeSecondsApart() throws {
        let analyzer = try FaceAnalyzer(models: SynthFixtures.models)
        let rig = try SynthFixtures.rig("grace_hopper.jpg", analyzer: analyzer)
        var person = SyntheticPerson(rig: rig, light: .none, seed: 9)
        var yaws: [Double] = []
        for ms in stride(from: 0, to: 200_000, by: 5000) {
            yaws.append(try #require(analyzer.detect(in: person.frame(at: ms, screen: ScreenState()).image()).first).pose.yaw)
        }
        let mean = yaws.reduce(0, +) / Double(yaws.count)
        let deviation = (yaws.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(yaws.count)).squareRoot()
        #expect(deviation < 2, "\(yaws)")
    }

    /// A session of the evaluation's hardest camera (5 fps portrait, dim, blurred, JPEG 60) at
    /// `high`, traced: the person turned 30 degrees between two frames, the frontal detector
    /// scored the turned head below what it keeps, and the landmarks drawn in the frontal face's
    /// box read the turn the other way and as a nod, failing `turnLeft` as `unsolicited_pitchDown`.
    /// A search around where the face was now keeps weaker detections and finds the head turned.
    @Test func aCooperatingPersonTurningFastBetweenFramesOfAHardCameraPasses() throws {
        let analyzer = try FaceAnalyzer(models: SynthFixtures.models)
        let library = try SubjectLibrary(directory: SynthFixtures.fixtures, analyzer: analyzer)
        let (subject, other) = library.pick(21)
        #expect(subject.name == "astronaut.png#0")
        let session = Species.live.simulate(rig: subject.rig, other: other.rig, policy: .preset(.high), analyzer: analyzer,
                                            camera: try #require(CameraConditions.matrix.last), seed: 55_743_151_221)
        #expect(session.decision.outcome == .passed, "\(session.decision.reasons)")
    }

    @Test func aSimulatedSessionIsReproducibleFromItsSeed() throws {
        let analyzer = try FaceAnalyzer(models: SynthFixtures.models)
        let rig = try SynthFixtures.rig("grace_hopper.jpg", analyzer: analyzer)
        let policy = LivenessPolicy.preset(.free)
        let a = Species.live.simulate(rig: rig, other: rig, policy: policy, analyzer: analyzer, seed: 11)
        let b = Species.live.simulate(rig: rig, other: rig, policy: policy, analyzer: analyzer, seed: 11)
        #expect(a.frames.map { contentHash($0.jpeg) } == b.frames.map { contentHash($0.jpeg) })
        #expect(a.decision.outcome == b.decision.outcome && a.decision.challenges == b.decision.challenges)
        #expect(!a.frames.isEmpty)
    }

    @Test func aFrozenFeedRepeatsFramesAndAReorderedOneGoesBackInTime() throws {
        let analyzer = try FaceAnalyzer(models: SynthFixtures.models)
        let rig = try SynthFixtures.rig("biden.jpg", analyzer: analyzer)
        let policy = LivenessPolicy.preset(.free)
        let frozen = Species.duplicatedFrames.simulate(rig: rig, other: rig, policy: policy, analyzer: analyzer, seed: 3)
        #expect(Set(frozen.frames.map { contentHash($0.jpeg) }).count < frozen.frames.count)
        #expect(frozen.decision.checks["frameTiming"]?.reason == "duplicate_frames")
        let reordered = Species.reorderedFrames.simulate(rig: rig, other: rig, policy: policy, analyzer: analyzer, seed: 3)
        let times = reordered.frames.map(\.timestampMs)
        #expect(times != times.sorted())
        #expect(reordered.decision.checks["frameTiming"]?.reason == "timestamps_not_monotonic")
    }
}

import Foundation
import Testing
import VigilCore
@testable import VigilFace

@Suite struct FaceAnalyzerTests {
    static let portraits = ["obama.jpg", "obama2.jpg", "biden.jpg", "grace_hopper.jpg"]

    /// A portrait placed in a 640x480 camera frame, as a webcam would see it, and the face a camera
    /// analyzer with `options` detects there.
    func cameraScene(_ options: DetectionOptions = DetectionOptions(), baseline: Bool = false) throws
        -> (analyzer: FaceAnalyzer, frame: Image, face: FaceObservation) {
        let frame = try #require(try Fixtures.cameraFrame(baseline: baseline))
        let analyzer = try baseline ? Fixtures.baselineAnalyzer(options) : Fixtures.analyzer(options)
        return (analyzer, frame, try #require(analyzer.detect(in: frame).first))
    }

    @Test(arguments: portraits) func findsExactlyOneFaceInEachPortrait(_ name: String) throws {
        let faces = try Fixtures.analyzer(.photos).detect(in: Fixtures.image(name))
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        #expect(face.score >= DetectionOptions.photos.minScore)
        #expect(face.landmarks.count == 68)
        #expect(face.source == .detected)
    }

    @Test(arguments: portraits) func landmarksAreAnatomicallyOrdered(_ name: String) throws {
        let face = try #require(try Fixtures.analyzer(.photos).detect(in: Fixtures.image(name)).first)
        let p = face.landmarks
        let rightEye = FaceGeometry.centre(p[36...41]), leftEye = FaceGeometry.centre(p[42...47])
        let mouth = FaceGeometry.centre(p[48...59])
        #expect(leftEye.x > rightEye.x, "the person's left eye is on the image's right")
        #expect(max(leftEye.y, rightEye.y) < p[30].y, "eyes above the nose tip")
        #expect(p[30].y < mouth.y, "nose tip above the mouth")
        #expect(mouth.y < p[8].y, "mouth above the chin")
        #expect(p.allSatisfy { face.box.scaled(by: 1.5).intersection(Rect(x: $0.x, y: $0.y, width: 0.1, height: 0.1)) != nil })
    }

    @Test func frontalPortraitHasNearZeroPose() throws {
        let face = try #require(try Fixtures.analyzer(.photos).detect(in: Fixtures.image("obama.jpg")).first)
        #expect(abs(face.pose.yaw) < 8 && abs(face.pose.pitch) < 8 && abs(face.pose.roll) < 5, "\(face.pose)")
    }

    @Test(arguments: [-15.0, 15.0]) func rollFollowsAnInPlaneRotation(_ degrees: Double) throws {
        let photo = try Fixtures.image("obama.jpg")
        let analyzer = try Fixtures.analyzer(.photos)
        let upright = try #require(analyzer.detect(in: photo).first)
        let rotated = Fixtures.rotated(photo, degrees: degrees, about: Point2D(x: upright.box.midX, y: upright.box.midY))
        let face = try #require(analyzer.detect(in: rotated).first)
        #expect(abs(face.pose.roll - upright.pose.roll - degrees) < 4, "\(face.pose)")
    }

    @Test func opennessAndQualityAreInPlausibleRanges() throws {
        let face = try #require(try Fixtures.analyzer(.photos).detect(in: Fixtures.image("obama.jpg")).first)
        #expect((0.15...0.45).contains(face.eyes.left) && (0.15...0.45).contains(face.eyes.right), "\(face.eyes)")
        #expect((0...0.6).contains(face.mouth))
        #expect((0.2...0.8).contains(face.quality.brightness))
        #expect(face.quality.contrast > 0.05)
        #expect(face.quality.sharpness > 50)
        #expect(face.placement.interocularDistance > 60)
    }

    @Test func blurAndDarknessShowInQuality() throws {
        let analyzer = try Fixtures.analyzer(.photos)
        let photo = try Fixtures.image("obama.jpg")
        let sharp = try #require(analyzer.detect(in: photo).first)
        let blurred = photo.resized(width: 227, height: 284).resized(width: 910, height: 1137)
        let dark = try Image(rgb: photo.rgb.map { $0 / 4 }, width: photo.width, height: photo.height)
        let blurredFace = try #require(analyzer.detect(in: blurred).first)
        #expect(blurredFace.quality.sharpness < sharp.quality.sharpness / 4)
        if let darkFace = analyzer.detect(in: dark).first {
            #expect(darkFace.quality.brightness < sharp.quality.brightness / 3)
        }
    }

    @Test func imagesWithoutFacesGiveNoDetections() throws {
        let analyzer = try Fixtures.analyzer(.photos)
        var rng = SplitMix64(state: 7)
        let noise = try Image(rgb: (0..<(640 * 480 * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }, width: 640, height: 480)
        let flat = try Image(rgb: [UInt8](repeating: 128, count: 640 * 480 * 3), width: 640, height: 480)
        #expect(analyzer.detect(in: noise).isEmpty)
        #expect(analyzer.detect(in: flat).isEmpty)
    }

    @Test func cameraFramesAreDetectedOnADownscaledCopy() throws {
        let (_, _, found) = try cameraScene()
        #expect(abs(found.box.midX - 320) < 30 && abs(found.box.midY - 240) < 40, "\(found.box)")
        #expect((0.3...0.6).contains(found.placement.relativeSize))
    }

    /// A face turning 0 -> 65 -> 0 degrees (as a turned plane, past where HOG finds it) while
    /// drifting sideways: the 68-point predictor's tracking keeps it in every frame and its
    /// landmarks follow it. (The mesh lets go of a flat picture turned that far: its presence
    /// falls, as it should for no real head; `FaceMeshTests`.)
    @Test(.enabled(if: Fixtures.baselineInstalled)) func trackingFollowsAFaceThroughASteepTurn() throws {
        let (analyzer, frame, first) = try cameraScene(baseline: true)
        var previous = first
        let centre = Point2D(x: 320, y: 240)
        let angles = (0...13).map { Double($0) * 5 } + (0...13).reversed().map { Double($0) * 5 }
        for (step, angle) in angles.enumerated() {
            let shift = Double(step) * 4
            let turned = Fixtures.turned(frame, degrees: angle, centre: centre, shift: shift)
            guard let face = analyzer.track(in: turned, previous: previous) else {
                Issue.record("lost at step \(step), \(angle) degrees")
                return
            }
            let nose = face.landmarks[30]
            #expect(abs(nose.x - (centre.x + shift)) < 45 && abs(nose.y - previous.landmarks[30].y) < 25,
                    "step \(step): nose at \(nose)")
            previous = face
        }
    }

    @Test func trackingReanchorsOnADetectionEveryFewFrames() throws {
        let (analyzer, frame, first) = try cameraScene(DetectionOptions(redetectInterval: 4))
        var face = first
        var sources: [FaceObservation.Source] = []
        for step in 1...8 {
            let moved = Fixtures.turned(frame, degrees: 0, centre: Point2D(x: 320, y: 240), shift: Double(step) * 3)
            guard let next = analyzer.track(in: moved, previous: face) else {
                Issue.record("lost at step \(step)")
                return
            }
            face = next
            sources.append(face.source)
        }
        #expect(sources == [.tracked, .tracked, .tracked, .detected, .tracked, .tracked, .tracked, .detected])
    }

    @Test func aFaceThatJumpedFurtherThanTrackingFollowsIsFoundAroundWhereItWas() throws {
        let (analyzer, frame, face) = try cameraScene()
        // A third of the face's width in one frame: a slow camera, or frames a busy server spread out.
        let shift = face.box.width / 3
        let jumped = Fixtures.turned(frame, degrees: 0, centre: Point2D(x: 320, y: 240), shift: shift)
        let found = try #require(analyzer.redetect(in: jumped, near: face, spread: 2.2))
        #expect(found.source == .detected)
        #expect(abs(found.landmarks[30].x - face.landmarks[30].x - shift) < 6, "nose at \(found.landmarks[30]), was \(face.landmarks[30])")
    }

    @Test func aStillFaceIsTrackedWithoutMovingItsBox() throws {
        let (analyzer, frame, face) = try cameraScene()
        let next = try #require(analyzer.track(in: frame, previous: face))
        #expect(next.source == .tracked)
        #expect(abs(next.box.midX - face.box.midX) < 0.02 * face.box.width && abs(next.box.midY - face.box.midY) < 0.02 * face.box.width)
        // The mesh read in a region a pixel or two from the last one moves its points by up to
        // 1.5% of the face (3 pixels here): the same still frame must not move them further.
        let moved = zip(next.landmarks, face.landmarks).map { $0.distance(to: $1) }.max() ?? 0
        #expect(moved < 0.02 * face.box.width, "a landmark moved \(moved) pixels")
    }

    /// The detector's boxes lie on its cell grid and sit higher or lower from one detection to the
    /// next; a detected face's box follows the face, so a still face's placement does not flicker.
    @Test func aDetectedFaceBoxFollowsTheFaceNotTheDetectorsGrid() throws {
        let (analyzer, frame, face) = try cameraScene()
        for shift in stride(from: 1.0, through: 9, by: 2) {
            let moved = Fixtures.turned(frame, degrees: 0, centre: Point2D(x: 320, y: 240), shift: shift)
            let found = try #require(analyzer.detect(in: moved).first)
            let error = abs(found.box.midX - face.box.midX - shift)
            #expect(error < 0.015 * face.box.width, "shifted \(shift) px, the box moved \(found.box.midX - face.box.midX)")
            #expect(abs(found.box.width - face.box.width) < 0.02 * face.box.width)
        }
    }

    /// A shape tilted far from the frame before is a doubtful track (a head turned fast between two
    /// frames of a slow camera): the face is detected again around where it was.
    /// (The 68-point baseline's tracking; the mesh reads its own region.)
    @Test(.enabled(if: Fixtures.baselineInstalled)) func aTrackedShapeWhoseRollJumpedIsDetectedAgain() throws {
        let (analyzer, frame, face) = try cameraScene(baseline: true)
        #expect(try #require(analyzer.track(in: frame, previous: face)).source == .tracked)
        var tilted = face
        tilted.pose.roll += 20
        let next = try #require(analyzer.track(in: frame, previous: tilted))
        #expect(next.source == .detected && abs(next.pose.roll - face.pose.roll) < 3, "\(next.source) \(next.pose)")
    }

    /// Where no detection can replace a doubtful shape (here a detector that takes nothing, as
    /// the frontal one does not take a head turned far), it is kept marked doubtful, and so are
    /// the shapes tracked from it, until the roll is back near the last trusted one.
    @Test(.enabled(if: Fixtures.baselineInstalled)) func aDoubtfulTrackStaysDoubtfulUntilItsRollComesBack() throws {
        let (_, frame, face) = try cameraScene(baseline: true)
        let blind = try Fixtures.baselineAnalyzer(DetectionOptions(minScore: 1000, minScoreNearFace: 1000))
        var tilted = face
        tilted.pose.roll += 20
        let doubtful = try #require(blind.track(in: frame, previous: tilted))
        #expect(doubtful.source == .tracked && doubtful.trustedRoll == tilted.pose.roll, "\(doubtful.pose)")
        // Steady from there, but still 20 degrees from the last trusted shape.
        let still = try #require(blind.track(in: frame, previous: doubtful))
        #expect(still.trustedRoll == tilted.pose.roll)
        var nearTrusted = still
        nearTrusted.trustedRoll = face.pose.roll + 4
        #expect(try #require(blind.track(in: frame, previous: nearTrusted)).isDoubtful == false)
    }

    @Test func trackingGivesUpAfterTheConfiguredNumberOfFrames() throws {
        let (analyzer, _, first) = try cameraScene(DetectionOptions(maxTrackedFrames: 3))
        var face = first
        let blank = try Image(rgb: [UInt8](repeating: 90, count: 640 * 480 * 3), width: 640, height: 480)
        var followed = 0
        while let next = analyzer.track(in: blank, previous: face) {
            #expect(next.source == .tracked)
            face = next
            followed += 1
            if followed > 3 { break }
        }
        #expect(followed <= 3)
    }
}

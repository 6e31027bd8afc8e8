import Foundation
import Testing
import VigilCore
@testable import VigilFace

/// MediaPipe's mesh, run by LiteRT from Swift; where the 68-point baseline is installed, measured
/// against dlib's 68 points: two models trained apart that must agree where a face's corners are.
@Suite struct FaceMeshTests {
    /// A mesh of the test's own: a compiled model serves one caller at a time.
    static func mesh() throws -> FaceMesh { try FaceMesh() }

    /// Mesh points and the 68-point scheme's points for the same places: eye corners, nose tip,
    /// mouth corners, chin.
    static let sharedPoints: [(mesh: Int, dlib: Int)] = [(33, 36), (133, 39), (362, 42), (263, 45), (1, 30), (61, 48), (291, 54), (152, 8)]

    /// The mesh read from a detection of `photo`, and that detection (with dlib's 68 points:
    /// `Fixtures.baselineAnalyzer`).
    func meshAndDetection(_ photo: Image, baseline: Bool = false) throws -> (MeshLandmarks, FaceObservation) {
        let analyzer = try baseline ? Fixtures.baselineAnalyzer(.photos) : Fixtures.analyzer(.photos)
        let face = try #require(analyzer.detect(in: photo).first)
        let region = FaceRegion(box: face.box, rightEye: face.landmarks[36], leftEye: face.landmarks[45])
        return (try Self.mesh().landmarks(in: photo, refining: region), face)
    }

    /// Mean distance between the shared points, as a fraction of the distance between the eyes'
    /// outer corners.
    func disagreement(_ mesh: MeshLandmarks, _ face: FaceObservation) -> Double {
        let eyes = face.landmarks[36].distance(to: face.landmarks[45])
        let total = Self.sharedPoints.reduce(0.0) { $0 + mesh.point($1.mesh).distance(to: face.landmarks[$1.dlib]) }
        return total / Double(Self.sharedPoints.count) / eyes
    }

    @Test(.enabled(if: Fixtures.baselineInstalled), arguments: FaceAnalyzerTests.portraits)
    func meshPointsLandWhereTheOtherModelPutsThem(_ name: String) throws {
        let (mesh, face) = try meshAndDetection(Fixtures.image(name), baseline: true)
        #expect(mesh.points.count == MeshLandmarks.count)
        #expect(mesh.presence > 0.9, "presence \(mesh.presence)")
        #expect(disagreement(mesh, face) < 0.08, "\(name): \(disagreement(mesh, face))")
    }

    @Test(arguments: [-25.0, 25.0]) func theMeshFollowsAHeadTiltedInThePicture(_ degrees: Double) throws {
        let photo = try Fixtures.image("obama.jpg")
        let (upright, face) = try meshAndDetection(photo)
        let theta = degrees * .pi / 180, c = Point2D(x: face.box.midX, y: face.box.midY)
        let rotated = Fixtures.rotated(photo, degrees: degrees, about: c)
        // Read in the upright face's region, then in the one its own points call for.
        let tilted = try Self.mesh().landmarks(in: rotated, refining: upright.region)
        for index in [MeshLandmarks.rightEyeOuter, MeshLandmarks.leftEyeOuter, 1, 152] {
            let p = upright.point(index), dx = p.x - c.x, dy = p.y - c.y
            let expected = Point2D(x: c.x + dx * cos(theta) - dy * sin(theta), y: c.y + dx * sin(theta) + dy * cos(theta))
            let eyes = upright.point(MeshLandmarks.rightEyeOuter).distance(to: upright.point(MeshLandmarks.leftEyeOuter))
            #expect(tilted.point(index).distance(to: expected) < 0.08 * eyes, "point \(index) at \(degrees) degrees")
        }
        #expect(abs(tilted.nextRegion.angle - upright.nextRegion.angle - theta) < 0.03)
    }

    @Test func aRegionWithoutAFaceIsSaidToHoldNone() throws {
        // A smooth gradient with a few bars: no face to find.
        var rgb = [UInt8](repeating: 0, count: 400 * 400 * 3)
        for y in 0..<400 {
            for x in 0..<400 {
                let value = UInt8((x + y) / 4 % 256), bar: UInt8 = (x / 40) % 2 == 0 ? 40 : 0
                rgb[(y * 400 + x) * 3] = value
                rgb[(y * 400 + x) * 3 + 1] = value &+ bar
                rgb[(y * 400 + x) * 3 + 2] = 128
            }
        }
        let image = try Image(rgb: rgb, width: 400, height: 400)
        let mesh = try Self.mesh().landmarks(in: image, region: FaceRegion(center: Point2D(x: 200, y: 200), side: 300, angle: 0))
        #expect(mesh.presence < 0.5, "presence \(mesh.presence)")
    }

    /// An analyzer whose models name the mesh: a face found by the detector, then followed
    /// through a turn by the mesh alone, its pose read on the canonical face.
    func meshScene() throws -> (analyzer: FaceAnalyzer, frame: Image, face: FaceObservation) {
        let frame = try #require(try Fixtures.cameraFrame())
        let analyzer = try FaceAnalyzer(models: FaceModels(landmarks: .mesh), options: DetectionOptions(redetectInterval: 100, maxTrackedFrames: 100))
        return (analyzer, frame, try #require(analyzer.detect(in: frame).first))
    }

    @Test func anAnalyzerOnTheMeshFollowsATurnAndReadsItsDirection() throws {
        let (analyzer, frame, first) = try meshScene()
        #expect(first.meshRegion != nil && abs(first.pose.yaw) < 8 && abs(first.pose.roll) < 8, "\(first.pose)")
        var previous = first
        for angle in stride(from: 5.0, through: 40, by: 5) {
            let turned = Fixtures.turned(frame, degrees: angle, centre: Point2D(x: 320, y: 240))
            let face = try #require(analyzer.track(in: turned, previous: previous), "lost at \(angle) degrees")
            #expect(face.source == .tracked)
            previous = face
        }
        // The frame turned as a plane, its right edge going back, so that it faces the image's
        // right (a flat picture, whose turn a 3D fit reads as a few degrees only: 3.7 by the
        // mesh at 40, the same way as the 68-point fit): the nose towards the image's right.
        #expect(previous.pose.yaw - first.pose.yaw > 2, "\(previous.pose)")
    }

    /// The descriptor aligned on 5 of the mesh's points (no 68-point predictor) still tells the
    /// same person from another.
    @Test func descriptorsAlignedOnTheMeshTellPeopleApart() throws {
        let analyzer = try FaceAnalyzer(models: FaceModels(landmarks: .mesh), options: .photos)
        func descriptor(_ name: String) throws -> FaceDescriptor {
            let photo = try Fixtures.image(name)
            return try analyzer.descriptor(for: try #require(analyzer.detect(in: photo).first), in: photo)
        }
        let obama = try descriptor("obama.jpg"), obama2 = try descriptor("obama2.jpg"), biden = try descriptor("biden.jpg")
        #expect(obama.distance(to: obama2) < 0.45, "same person: \(obama.distance(to: obama2))")
        #expect(obama.distance(to: biden) > 0.7, "two people: \(obama.distance(to: biden))")
    }

    @Test func theMeshLetsGoOfAFaceThatIsGone() throws {
        let (analyzer, frame, face) = try meshScene()
        #expect(analyzer.track(in: frame, previous: face) != nil)
        let blank = try Image(rgb: [UInt8](repeating: 90, count: frame.width * frame.height * 3), width: frame.width, height: frame.height)
        #expect(analyzer.track(in: blank, previous: face) == nil)
    }

    @Test(arguments: [FaceRegion(center: Point2D(x: .nan, y: 10), side: 100, angle: 0),
                      FaceRegion(center: Point2D(x: 10, y: 10), side: .infinity, angle: 0),
                      FaceRegion(center: Point2D(x: 10, y: 10), side: 0, angle: 0),
                      FaceRegion(center: Point2D(x: 10, y: 10), side: 100, angle: .nan)])
    func aRegionThatIsNoSquareIsAnErrorNotACrash(_ region: FaceRegion) throws {
        let image = try Image(rgb: [UInt8](repeating: 128, count: 64 * 64 * 3), width: 64, height: 64)
        #expect(throws: ModelError.self) { try Self.mesh().landmarks(in: image, region: region) }
    }

    /// `Sources/CLiteRT` declares the runtime's functions for one build of it: scripts/setup must
    /// pin that build, and the file in place must be it.
    @Test func theRuntimeInPlaceIsTheBuildItsDeclarationsWereWrittenFor() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        let setup = try String(contentsOf: root.appendingPathComponent("scripts/setup"), encoding: .utf8)
        #expect(setup.contains("\"ai-edge-litert==2.3.0\" wheel ai_edge_litert/libLiteRt.so"))
        #expect(setup.contains("\"$VIGIL_MODELS/litert/libLiteRt.so\" \(FaceMesh.runtimeSHA256)"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [FaceModels.defaultDirectory.appendingPathComponent(FaceMesh.runtimeFile).path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(output.hasPrefix(FaceMesh.runtimeSHA256))
    }
}

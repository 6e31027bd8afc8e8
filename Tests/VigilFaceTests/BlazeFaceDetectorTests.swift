import Foundation
import Testing
import VigilCore
@testable import VigilFace

/// MediaPipe's short-range detector, run by LiteRT from Swift: where it finds a camera's face,
/// which eye is which, and what the analyzer keeps of it.
@Suite struct BlazeFaceDetectorTests {
    @Test func theAnchorsAreTheShortRangeLayout() {
        let anchors = BlazeFaceDetector.anchors(side: 128)
        #expect(anchors.count == 896)
        #expect(anchors[0] == SIMD2(0.5 / 16, 0.5 / 16) && anchors[1] == anchors[0])
        #expect(anchors[512] == SIMD2(0.5 / 8, 0.5 / 8) && anchors[517] == anchors[512] && anchors[518] == SIMD2(1.5 / 8, 0.5 / 8))
        #expect(anchors[895] == SIMD2(7.5 / 8, 7.5 / 8))
    }

    /// One face in a camera frame, its box around the mesh's face and its eyes on the mesh's eye
    /// corners' side: the subject's right eye on the image's left.
    @Test func aCameraFaceIsFoundWithItsEyesInPlace() throws {
        let frame = try #require(try Fixtures.cameraFrame())
        let detections = try BlazeFaceDetector().detect(in: frame)
        let face = try #require(detections.first)
        #expect(detections.count == 1 && face.score > 0.8, "\(detections)")
        let mesh = try FaceMesh().landmarks(in: frame, region: face.meshRegion)
        let right = mesh.point(MeshLandmarks.rightEyeOuter), left = mesh.point(MeshLandmarks.leftEyeOuter)
        let eyes = right.distance(to: left)
        #expect(face.rightEye.x < face.leftEye.x)
        #expect(face.rightEye.distance(to: Point2D(x: (right.x + mesh.point(133).x) / 2, y: (right.y + mesh.point(133).y) / 2)) < 0.15 * eyes)
        #expect(face.leftEye.distance(to: Point2D(x: (left.x + mesh.point(362).x) / 2, y: (left.y + mesh.point(362).y) / 2)) < 0.15 * eyes)
        let centre = Point2D(x: face.box.midX, y: face.box.midY), nose = mesh.point(MeshLandmarks.noseTip)
        #expect(centre.distance(to: nose) < 0.3 * eyes && face.box.width > 1.5 * eyes && face.box.width < 3 * eyes, "\(face.box)")
    }

    @Test func aFrameWithoutAFaceHoldsNone() throws {
        var rgb = [UInt8](repeating: 0, count: 640 * 480 * 3)
        for i in 0..<(640 * 480) { rgb[3 * i] = UInt8(i % 640 / 3); rgb[3 * i + 1] = UInt8(i / 640 / 2); rgb[3 * i + 2] = 90 }
        #expect(try BlazeFaceDetector().detect(in: try Image(rgb: rgb, width: 640, height: 480)).isEmpty)
    }

    /// A face searched for around where it was is found with more of the detector's input, and
    /// the analyzer's redetection keeps it in place.
    @Test func aSearchAroundTheFaceFindsItThere() throws {
        let frame = try #require(try Fixtures.cameraFrame())
        let analyzer = try Fixtures.analyzer()
        let face = try #require(analyzer.detect(in: frame).first)
        let again = try #require(analyzer.redetect(in: frame, near: face))
        #expect(again.box.overlap(with: face.box) > 0.9 && again.source == .detected)
    }

    /// Faces under the share of the smallest face of interest that HOG reaches are not kept, so a
    /// small face in the background does not make two.
    @Test func aFaceFarSmallerThanTheSmallestOfInterestIsNotKept() throws {
        let frame = try #require(try Fixtures.cameraFrame())
        let analyzer = try Fixtures.analyzer()
        let face = try #require(analyzer.detect(in: frame).first)
        let share = face.box.width / 480
        #expect(analyzer.detect(in: frame, minFaceFraction: share / FaceAnalyzer.blazeFaceSmallestShare * 1.3).isEmpty)
        #expect(analyzer.detect(in: frame, minFaceFraction: max(0.2, share * 0.9)).count == 1)
    }
}

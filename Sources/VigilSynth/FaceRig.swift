import Foundation
import VigilCore
import VigilFace

/// Errors while preparing a synthetic subject.
public enum SynthError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The photo shows no face, or more than one.
    case noSingleFace(String)
    /// A parameter is out of range.
    case invalidParameter(String)

    /// A readable explanation.
    public var description: String {
        switch self {
        case .noSingleFace(let name): "\(name): expected exactly one face"
        case .invalidParameter(let text): text
        }
    }
}

/// What a synthetic face does in one frame, relative to its photo.
public struct FaceState: Sendable, Hashable {
    /// Head rotation in degrees (the conventions of `HeadPose`).
    public var yaw = 0.0, pitch = 0.0, roll = 0.0
    /// Translation of the head in canvas pixels.
    public var dx = 0.0, dy = 0.0
    /// Scale of the head about its centre (1 = as composed).
    public var scale = 1.0
    /// Eyelid closure per eye in [0, 1] (1 = shut).
    public var eyesClosed = 0.0
    /// Jaw opening in [0, 1].
    public var jawOpen = 0.0

    /// A neutral face.
    public init() {}
}

/// A photo turned into a posable head: the photo composed on a camera-sized canvas, its landmarks
/// lifted to 3D with `FaceModels.meanFace`'s depth, and a triangle mesh covering the whole frame
/// (the head moves; a ring around it and the frame's border stay put, so the background stretches
/// between).
public struct FaceRig: Sendable {
    /// The composed neutral frame.
    public let canvas: PixelBuffer
    /// Inter-ocular distance on the canvas (pixels).
    public let interocular: Double
    /// Where the face sits on the canvas.
    public let faceBox: Rect

    private let moving: [SIMD3<Double>]   // landmarks, forehead, head outline (canvas x, y; depth z)
    private let fixed: [Point2D]          // background ring and frame border
    private let neutral: [Point2D]
    private let centre: SIMD3<Double>
    private let warp: MeshWarp
    private let photoPose: HeadPose   // undone (mostly) so the neutral face looks at the camera
    /// How shut eyes are painted, chosen per photo (see `EyelidStyle`).
    public private(set) var eyelids = EyelidStyle.skinFromAbove

    /// Ways to paint shut eyes. None reads as shut to the landmark model on every photo (a brow
    /// close above the eye, a bright cheek, a small eye), so the rig keeps the one that does best.
    public enum EyelidStyle: CaseIterable, Sendable {
        /// Lid skin cloned from above the eye over the opening.
        case skinFromAbove
        /// Cheek skin cloned from below the eye over the opening and the upper lash line.
        case skinFromBelow
        /// Only the mesh: upper lid points drawn down to the lower lid.
        case warpOnly
    }

    static let forehead = 68..<77

    /// Composes `photo` onto a `width` x `height` canvas with the face `faceHeight` of the frame
    /// high, offset from the centre by `offset` (fractions of the frame), optionally mirrored.
    public init(photo: Image, name: String, analyzer: FaceAnalyzer, width: Int = 640, height: Int = 480,
                faceHeight: Double = 0.45, offset: Point2D = Point2D(x: 0, y: 0), mirrored: Bool = false) throws(SynthError) {
        let saved = analyzer.options
        analyzer.options = .photos
        let faces = analyzer.detect(in: photo)
        analyzer.options = saved
        guard faces.count == 1, let face = faces.first else { throw .noSingleFace(name) }

        let scale = faceHeight * Double(height) / face.box.height
        let target = Point2D(x: Double(width) * (0.5 + offset.x), y: Double(height) * (0.5 + offset.y))
        let source = PixelBuffer(photo)
        var canvas = PixelBuffer(width: width, height: height)
        let midX = face.box.midX, midY = face.box.midY
        func toPhoto(_ x: Double, _ y: Double) -> (Double, Double) {
            let u = (x - target.x) / scale
            return (midX + (mirrored ? -u : u), midY + (y - target.y) / scale)
        }
        canvas.rgb.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                for x in 0..<width {
                    let (u, v) = toPhoto(Double(x), Double(y))
                    let c = source.sample(u, v)
                    let i = (y * width + x) * 3
                    p[i] = c.0; p[i + 1] = c.1; p[i + 2] = c.2
                }
            }
        }
        self.canvas = canvas
        photoPose = mirrored ? HeadPose(yaw: -face.pose.yaw, pitch: face.pose.pitch, roll: -face.pose.roll) : face.pose

        // Landmarks on the canvas; a mirrored photo swaps the person's sides.
        var marks = face.landmarks.map { p in
            let u = (p.x - midX) * scale
            return Point2D(x: target.x + (mirrored ? -u : u), y: target.y + (p.y - midY) * scale)
        }
        if mirrored { marks = Self.mirrorOrder.map { marks[$0] } }
        let box = Rect(x: target.x - face.box.width * scale / 2, y: target.y - face.box.height * scale / 2,
                       width: face.box.width * scale, height: face.box.height * scale)
        faceBox = box

        let mean = analyzer.models.meanFace
        let meanCentroid = mean.reduce(SIMD3<Double>()) { $0 + $1 } / Double(mean.count)
        // The analyzer's inter-ocular distance, scaled onto the canvas (mirroring keeps it).
        let iod = face.placement.interocularDistance * scale
        let meanIOD = { () -> Double in
            let a = mean[36...41].reduce(SIMD3<Double>()) { $0 + $1 } / 6, b = mean[42...47].reduce(SIMD3<Double>()) { $0 + $1 } / 6
            return ((a - b) * (a - b)).sum().squareRoot()
        }()
        interocular = iod
        let depthScale = iod / meanIOD
        var points = zip(marks, mean).map { p, m in SIMD3(p.x, p.y, (m.z - meanCentroid.z) * depthScale) }

        // Forehead: two rows above the brows, sloping back.
        for (b, rise, back) in [(17, 0.8, 0.5), (19, 0.9, 0.25), (21, 0.9, 0.15), (22, 0.9, 0.15), (24, 0.9, 0.25), (26, 0.8, 0.5),
                                (19, 1.6, 0.6), (27, 1.7, 0.45), (24, 1.6, 0.6)] {
            let p = points[b]
            let x = b == 27 ? (points[21].x + points[22].x) / 2 : p.x
            points.append(SIMD3(x, p.y - rise * iod, p.z + back * iod))
        }
        // Head outline: an ellipse around the face, at the depth of the ears.
        let cx = marks.reduce(0) { $0 + $1.x } / 68, cy = marks.reduce(0) { $0 + $1.y } / 68 - 0.35 * iod
        let halfWidth = abs(marks[16].x - marks[0].x) / 2
        let earDepth = points[0].z * 0.5 + points[16].z * 0.5 + 0.4 * iod
        for k in 0..<14 {
            let a = Double(k) / 14 * 2 * Double.pi
            points.append(SIMD3(cx + cos(a) * halfWidth * 1.3, cy + sin(a) * iod * 2.35, earDepth))
        }
        moving = points
        centre = SIMD3(cx, cy + 0.35 * iod, earDepth)

        // Background that does not move: a wider ring and the frame border.
        var still: [Point2D] = []
        for k in 0..<16 {
            let a = (Double(k) + 0.5) / 16 * 2 * Double.pi
            still.append(Point2D(x: cx + cos(a) * halfWidth * 2.1, y: cy + sin(a) * iod * 3.4))
        }
        let w = Double(width - 1), h = Double(height - 1)
        still += [Point2D(x: 0, y: 0), Point2D(x: w / 2, y: 0), Point2D(x: w, y: 0), Point2D(x: w, y: h / 2),
                  Point2D(x: w, y: h), Point2D(x: w / 2, y: h), Point2D(x: 0, y: h), Point2D(x: 0, y: h / 2)]
        fixed = still
        neutral = moving.map { Point2D(x: $0.x, y: $0.y) } + still
        warp = MeshWarp(neutral: neutral)
        eyelids = calibratedEyelids(analyzer)
    }

    /// The eyelid style whose shut eyes the analyzer reads as most closed (eye openness relative
    /// to the open eyes, frontal and turned).
    private func calibratedEyelids(_ analyzer: FaceAnalyzer) -> EyelidStyle {
        var rig = self
        func eyes(_ closed: Double, yaw: Double) -> Double? {
            var state = FaceState()
            state.eyesClosed = closed
            state.yaw = yaw
            return analyzer.detect(in: rig.render(state).frame.image()).first.map { ($0.eyes.left + $0.eyes.right) / 2 }
        }
        let yaws = [0.0, 12]
        let open = yaws.map { eyes(0, yaw: $0) }
        var best = (style: EyelidStyle.skinFromAbove, ratio: Double.infinity)
        for style in EyelidStyle.allCases {
            rig.eyelids = style
            let ratios = zip(yaws, open).map { yaw, o in o.flatMap { o in eyes(1, yaw: yaw).map { $0 / max(o, 1e-3) } } ?? 1 }
            let ratio = ratios.reduce(0, +) / Double(ratios.count)
            if ratio < best.ratio { best = (style, ratio) }
        }
        return best.style
    }

    /// dlib's 68-point order after a horizontal flip.
    static let mirrorOrder: [Int] = {
        var order = Array(0..<68)
        func swap(_ a: [Int], _ b: [Int]) { for (i, j) in zip(a, b) { order[i] = j; order[j] = i } }
        swap(Array(0...7), Array((9...16).reversed()))
        swap(Array(17...21), Array((22...26).reversed()))
        swap([31, 32], [35, 34])
        swap([36, 37, 38, 39, 40, 41], [45, 44, 43, 42, 47, 46])
        swap([48, 49, 50, 59, 58, 60, 61, 67], [54, 53, 52, 55, 56, 64, 63, 65])
        return order
    }()

    /// The rig's points for `state`: 2D positions and depth (larger = farther).
    func pose(_ state: FaceState) -> (points: [Point2D], depth: [Double]) {
        var p = moving
        // Eyelids: upper lid points move toward the lower lid.
        let lids = [(37, 41), (38, 40), (43, 47), (44, 46)]
        for (upper, lower) in lids {
            p[upper] += (p[lower] - p[upper]) * (0.92 * state.eyesClosed)
        }
        // Jaw: the lower lip and chin drop, the corners less.
        let drop = state.jawOpen * 0.55 * interocular
        let jawWeights: [(Int, Double)] = [(4, 0.15), (5, 0.35), (6, 0.6), (7, 0.85), (8, 1), (9, 0.85), (10, 0.6), (11, 0.35), (12, 0.15),
                                           (48, 0.3), (54, 0.3), (60, 0.3), (64, 0.3), (55, 1), (56, 1), (57, 1), (58, 1), (59, 1),
                                           (65, 1), (66, 1), (67, 1)]
        for (i, weight) in jawWeights { p[i].y += drop * weight }

        let rad = Double.pi / 180
        // Turning a photographed head to face the camera shows texture that is not there: undo
        // most of the photo's yaw and pitch; roll is in the image plane and undone fully.
        let yaw = state.yaw - 0.7 * photoPose.yaw, pitch = state.pitch - 0.7 * photoPose.pitch, roll = state.roll - photoPose.roll
        let (cy, sy) = (cos(yaw * rad), sin(yaw * rad))
        let (cp, sp) = (cos(pitch * rad), sin(pitch * rad))
        let (cr, sr) = (cos(roll * rad), sin(roll * rad))
        var points: [Point2D] = []
        var depth: [Double] = []
        points.reserveCapacity(p.count + fixed.count)
        for q in p {
            var v = q - centre
            v = SIMD3(v.x * cy - v.z * sy, v.y, v.x * sy + v.z * cy)      // yaw: nose toward +x
            v = SIMD3(v.x, v.y * cp + v.z * sp, -v.y * sp + v.z * cp)     // pitch: nose toward -y
            v = SIMD3(v.x * cr - v.y * sr, v.x * sr + v.y * cr, v.z)      // roll: clockwise in the image
            points.append(Point2D(x: centre.x + state.dx + v.x * state.scale, y: centre.y + state.dy + v.y * state.scale))
            depth.append(v.z)
        }
        points += fixed
        depth += [Double](repeating: 1e6, count: fixed.count)
        return (points, depth)
    }

    /// Renders the face in `state` without lighting or noise.
    public func render(_ state: FaceState) -> (frame: PixelBuffer, points: [Point2D]) {
        let (points, depth) = pose(state)
        var frame = canvas
        warp.render(canvas, from: neutral, to: points, depth: depth, into: &frame)
        if state.eyesClosed > 0.2 {
            // The warp squeezes the eye but leaves the iris showing: paint the lid over the opening
            // (in the rig's style) and a lash line where the lid meets the lower lid.
            var open = state
            open.eyesClosed = 0
            let openPoints = pose(open).points
            let alpha = Float(min(1, (state.eyesClosed - 0.2) / 0.6))
            let snapshot = frame
            for range in [36...41, 42...47] {
                let opening = range.map { openPoints[$0] }
                let c = Point2D(x: opening.reduce(0) { $0 + $1.x } / 6, y: opening.reduce(0) { $0 + $1.y } / 6)
                let width = opening[0].distance(to: opening[3])
                let height = max(opening[1].distance(to: opening[5]), opening[2].distance(to: opening[4]))
                switch eyelids {
                case .skinFromAbove:
                    frame.clone(from: snapshot, centre: c, radii: (width * 0.7, height * 1.1 + 3), shiftY: -(height * 2.3 + 5), alpha: alpha)
                case .skinFromBelow:
                    let radiusY = height * 1.3 + 4
                    frame.clone(from: snapshot, centre: Point2D(x: c.x, y: c.y - height * 0.3), radii: (width * 0.75, radiusY),
                                shiftY: 2 * radiusY + 2, alpha: alpha)
                case .warpOnly:
                    break
                }
                let lash = [range.lowerBound, range.lowerBound + 5, range.lowerBound + 4, range.lowerBound + 3].map { points[$0] }
                frame.stroke(lash, width: max(1.5, interocular * 0.025), color: (40, 30, 30), alpha: alpha * 0.85)
            }
        }
        if state.jawOpen > 0.05 {
            frame.fill(polygon: Array(points[60...67]), color: (38, 16, 18), alpha: Float(min(1, state.jawOpen * 2.5)))
        }
        return (frame, points)
    }
}

import Foundation
import VigilCore
import VigilFace

/// A photo of the person held in front of the camera: printed (flat or bent) or shown on a
/// screen, moved by hand, tilted to fake head turns. It knows nothing of the plan.
public struct PhotoAttack: SyntheticCamera {
    /// How the photo is presented.
    public enum Medium: Sendable, Hashable {
        /// A flat print moved rigidly in the image plane.
        case print
        /// A flat print tilted about both axes (perspective), as if to turn and nod.
        case tiltedPrint
        /// A print bent around a vertical axis, the bend changing over time.
        case bentPrint
        /// The photo on a phone or monitor: pixel grid, gamma, tint; held and tilted.
        case screen

        /// The medium of a photo species; nil for the others.
        public init?(_ species: Species) {
            switch species {
            case .photoPrint: self = .print
            case .photoTilted: self = .tiltedPrint
            case .photoBent: self = .bentPrint
            case .screenReplay: self = .screen
            default: return nil
            }
        }
    }

    private let medium: Medium
    private let source: PixelBuffer      // what is shown: the print, or the screen's subpixels
    private let sourceScale: Double      // source pixels per canvas pixel
    private let room: PixelBuffer
    private let region: Rect             // the print on the canvas
    private let grid: (columns: Int, rows: Int)
    private let warp: MeshWarp
    private var random: SynthRandom
    private let motion: (tiltYaw: Double, tiltPitch: Double, periodMs: Double, phase: Double, bend: Double)
    private var offset = (x: 0.0, y: 0.0, roll: 0.0)
    private var lastMs: Int?

    /// A photo attack with the neutral frame of `rig`.
    public init(rig: FaceRig, medium: Medium, seed: UInt64) {
        self.medium = medium
        var random = SynthRandom(seed: seed)
        let canvas = rig.canvas
        let box = rig.faceBox
        let w = Double(canvas.width), h = Double(canvas.height)
        let grow = random.uniform(1.8...2.4)
        let rx = max(0, box.midX - box.width * grow / 2), ry = max(0, box.midY - box.height * grow / 2)
        region = Rect(x: rx, y: ry, width: min(w, box.midX + box.width * grow / 2) - rx, height: min(h, box.midY + box.height * grow / 2) - ry)

        // The room behind: the frame blurred to nothing and darkened.
        let small = canvas.image().resized(width: 16, height: 12)
        var room = PixelBuffer(small.resized(width: canvas.width, height: canvas.height))
        for i in 0..<room.rgb.count { room.rgb[i] *= 0.6 }
        self.room = room

        if medium == .screen {
            // Display gamma and a cool tint, lifted blacks; each pixel drawn as R, G, B stripes
            // with a dark gap, at `factor` subpixel columns per canvas pixel.
            let factor = 3
            var screen = PixelBuffer(width: canvas.width * factor, height: canvas.height * factor)
            let gamma = Float(random.uniform(0.75...0.9)), lift = Float(random.uniform(8...20))
            let tint: [Float] = [Float(random.uniform(0.9...0.97)), 1, Float(random.uniform(1.03...1.1))]
            for y in 0..<screen.height {
                for x in 0..<screen.width {
                    let v = canvas.sample(Double(x / factor), Double(y / factor))
                    let channel = x % factor
                    let gap: Float = y % factor == factor - 1 ? 0.35 : 1
                    let value = channel == 0 ? v.0 : channel == 1 ? v.1 : v.2
                    let shown = lift + (255 - lift) * pow(max(value, 0) / 255, gamma) * tint[channel]
                    let i = (y * screen.width + x) * 3
                    screen.rgb[i + channel] = shown * gap * 3   // one subpixel lit, three times as bright
                }
            }
            // The camera integrates over its pixel: most of the subpixel pattern averages out; the
            // part that survives (`moire`) beats with the sampling grid into moire.
            let raw = screen
            screen.boxBlur(radius: 1)
            let moire = Float(random.uniform(0.08...0.2))
            for i in 0..<screen.rgb.count { screen.rgb[i] += (raw.rgb[i] - screen.rgb[i]) * moire }
            source = screen
            sourceScale = Double(factor)
        } else {
            source = canvas
            sourceScale = 1
        }

        grid = (12, 10)
        var triangles: [(Int, Int, Int)] = []
        for r in 0..<grid.rows {
            for c in 0..<grid.columns {
                let a = r * (grid.columns + 1) + c, b = a + 1, d = a + grid.columns + 1, e = d + 1
                triangles.append((a, b, e))
                triangles.append((a, e, d))
            }
        }
        warp = MeshWarp(triangles: triangles)
        let tilts = medium == .tiltedPrint || medium == .screen
        motion = (tiltYaw: tilts ? random.uniform(15...35) : 0, tiltPitch: tilts ? random.uniform(8...22) : 0,
                  periodMs: random.uniform(1800...3500), phase: random.uniform(0...(2 * Double.pi)),
                  bend: medium == .bentPrint ? random.uniform(0.6...1.4) : 0)
        self.random = random
    }

    public mutating func frame(at timestampMs: Int, screen: ScreenState) -> PixelBuffer {
        let dt = Double(timestampMs - (lastMs ?? timestampMs)) / 1000
        lastMs = timestampMs
        // A hand: slow wander in position and in-plane angle.
        offset.x += -offset.x * min(1, dt) + random.gaussian(12 * dt.squareRoot())
        offset.y += -offset.y * min(1, dt) + random.gaussian(9 * dt.squareRoot())
        offset.roll += -offset.roll * min(1, dt) + random.gaussian(4 * dt.squareRoot())
        let phase = Double(timestampMs) / motion.periodMs * 2 * Double.pi + motion.phase
        let yaw = motion.tiltYaw * sin(phase), pitch = motion.tiltPitch * sin(phase * 0.63 + 1)
        let bend = motion.bend * (0.6 + 0.4 * sin(phase * 0.8))

        let focal = 900.0
        let centre = Point2D(x: region.midX, y: region.midY)
        let rad = Double.pi / 180
        var from: [Point2D] = [], to: [Point2D] = [], depth: [Double] = []
        for r in 0...grid.rows {
            for c in 0...grid.columns {
                let u = region.x + region.width * Double(c) / Double(grid.columns)
                let v = region.y + region.height * Double(r) / Double(grid.rows)
                var p = SIMD3(u - centre.x, v - centre.y, 0.0)
                if bend > 0 {
                    // Rolled around a vertical axis of radius R: the sides curve away.
                    let radius = region.width / (2 * bend)
                    let a = p.x / radius
                    p = SIMD3(radius * sin(a), p.y, radius * (1 - cos(a)))
                }
                p = SIMD3(p.x * cos(yaw * rad) + p.z * sin(yaw * rad), p.y, -p.x * sin(yaw * rad) + p.z * cos(yaw * rad))
                p = SIMD3(p.x, p.y * cos(pitch * rad) - p.z * sin(pitch * rad), p.y * sin(pitch * rad) + p.z * cos(pitch * rad))
                let roll = offset.roll * rad
                p = SIMD3(p.x * cos(roll) - p.y * sin(roll), p.x * sin(roll) + p.y * cos(roll), p.z)
                let z = focal + p.z
                from.append(Point2D(x: u * sourceScale, y: v * sourceScale))
                to.append(Point2D(x: centre.x + offset.x + focal * p.x / z, y: centre.y + offset.y + focal * p.y / z))
                depth.append(p.z)
            }
        }
        var frame = room
        warp.render(source, from: from, to: to, depth: depth, into: &frame)
        return frame
    }
}

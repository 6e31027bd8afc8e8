import VigilCore

/// Light from the phone's screen falling on the face: the face is tinted toward the colour shown,
/// the background (farther away) much less.
public struct ScreenLight: Sendable {
    /// The colour on screen, 0...1 per channel (white while no reflection step is shown).
    public var color: (red: Double, green: Double, blue: Double)
    /// Screen light relative to the room's light on the face (0 = no response).
    public var strength: Double

    /// Light of `color` at `strength`.
    public init(color: (red: Double, green: Double, blue: Double), strength: Double) {
        self.color = color
        self.strength = strength
    }

    /// A white screen.
    public static func white(strength: Double) -> ScreenLight { ScreenLight(color: (1, 1, 1), strength: strength) }

    /// Applies the light to `frame`, full strength inside the face ellipse, fading to 30% outside.
    func apply(to frame: inout PixelBuffer, face centre: Point2D, radii: (Double, Double)) {
        guard strength > 0 else { return }
        let k = strength
        // Relative to a white screen, which the neutral frame was lit by.
        let gain = [color.red, color.green, color.blue].map { Float((1 + k * $0) / (1 + k)) }
        let width = frame.width
        frame.rgb.withUnsafeMutableBufferPointer { p in
            for y in 0..<frame.height {
                let dy = (Double(y) - centre.y) / radii.1
                for x in 0..<width {
                    let dx = (Double(x) - centre.x) / radii.0
                    let r = (dx * dx + dy * dy).squareRoot()
                    let w = Float(r < 1 ? 1 : max(0.3, 1 - (r - 1) * 1.4))
                    let i = (y * width + x) * 3
                    for c in 0..<3 { p[i + c] *= 1 + (gain[c] - 1) * w }
                }
            }
        }
    }
}

import Foundation
import VigilFace

/// How a document reaches the camera: the page itself, or one of the attack species, a
/// greyscale photocopy of it or a picture of it shown on a screen.
public enum DocumentPresentation: String, CaseIterable, Sendable {
    case genuine, photocopy, screen

    /// What the camera photographs of `page` (the page in colour) presented this way.
    public func photo(of page: Image, random: inout SynthRandom) throws -> Image {
        switch self {
        case .genuine: page
        case .photocopy: try Self.photocopied(page, random: &random)
        case .screen: try Self.onScreen(page)
        }
    }

    /// A greyscale copy: the colour gone, the toner's contrast (paper whiter, ink blacker), a few
    /// specks of toner, under a room's warm light.
    static func photocopied(_ page: Image, random: inout SynthRandom) throws -> Image {
        var rgb = [UInt8](repeating: 0, count: page.rgb.count)
        for i in 0..<(page.width * page.height) {
            let luma = (299 * Int(page.rgb[3 * i]) + 587 * Int(page.rgb[3 * i + 1]) + 114 * Int(page.rgb[3 * i + 2])) / 1000
            var v = Double(30 + (luma - 40) * 5 / 4)
            if random.next() % 1000 == 0 { v -= 120 }
            for (c, light) in [1.0, 0.98, 0.93].enumerated() { rgb[3 * i + c] = UInt8(max(0, min(255, v * light))) }
        }
        return try Image(rgb: rgb, width: page.width, height: page.height)
    }

    /// The page on a screen photographed: its pixels, 2.6 photo pixels apart and turned by 2
    /// degrees, each three stripes of red, green and blue with dark gaps between them; the
    /// camera averages what falls on each of its pixels (3x3 samples), so the grid beats with
    /// the camera's as moire, and its lens blurs over 5x5 pixels (which leaves little of the
    /// grid itself, as a phone's optics and processing do). The screen is a little dimmer and
    /// bluer than paper.
    static func onScreen(_ page: Image) throws -> Image {
        let pitch = 2.6, angle = 2 * Double.pi / 180, (s, c) = (sin(angle), cos(angle))
        var rgb = [UInt8](repeating: 0, count: page.rgb.count)
        for y in 0..<page.height {
            for x in 0..<page.width {
                var sum = [0.0, 0.0, 0.0]
                for sy in 0..<3 {
                    for sx in 0..<3 {
                        let px = Double(x) + (Double(sx) + 0.5) / 3, py = Double(y) + (Double(sy) + 0.5) / 3
                        let u = (px * c + py * s) / pitch, v = (-px * s + py * c) / pitch
                        let stripe = (u - u.rounded(.down)) * 3, row = v - v.rounded(.down)
                        guard stripe - stripe.rounded(.down) < 0.8, row < 0.9 else { continue }
                        let channel = Int(stripe)
                        sum[channel] += 3 * Double(page.rgb[(y * page.width + x) * 3 + channel])
                    }
                }
                for (channel, gain) in [0.85, 0.9, 1.0].enumerated() {
                    rgb[(y * page.width + x) * 3 + channel] = UInt8(max(0, min(255, sum[channel] / 9 * gain)))
                }
            }
        }
        return try Image(rgb: lensBlurred(rgb, width: page.width, height: page.height), width: page.width, height: page.height)
    }

    /// Each channel averaged over 5x5 pixels (those within the image, at its edges).
    static func lensBlurred(_ rgb: [UInt8], width: Int, height: Int) -> [UInt8] {
        var out = rgb
        for y in 0..<height {
            for x in 0..<width {
                let ys = max(0, y - 2)...min(height - 1, y + 2), xs = max(0, x - 2)...min(width - 1, x + 2)
                for channel in 0..<3 {
                    var sum = 0
                    for sy in ys { for sx in xs { sum += Int(rgb[(sy * width + sx) * 3 + channel]) } }
                    out[(y * width + x) * 3 + channel] = UInt8(sum / (ys.count * xs.count))
                }
            }
        }
        return out
    }
}

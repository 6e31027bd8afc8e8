import Foundation
import VigilCore

/// Periodic texture on a face: a screen's pixel grid beating with the camera's sampling shows as
/// moire, isolated peaks in the spectrum of the face's colour; skin and its features give a smooth
/// spectrum. Measured on the red-minus-blue chroma of the central face, where skin is smoothest.
public enum ScreenPatternMeter {
    /// Patch size (samples per side) of the spectrum.
    static let size = 64
    /// Spatial frequencies (cycles per patch) considered: below are facial features, above is noise.
    static let band = 5...24

    /// The strongest spectral peak in the band over the median of its frequency ring (about 5-15
    /// on skin, far more on moire).
    public static func periodicity(in image: Image, box: Rect) -> Double {
        let n = size
        let side = min(box.width, box.height) * 0.6
        let x0 = box.midX - side / 2, y0 = box.midY - side / 2, step = side / Double(n)
        var patch = [Double](repeating: 0, count: n * n)
        image.rgb.withUnsafeBufferPointer { p in
            for j in 0..<n {
                for i in 0..<n {
                    let x = min(max(Int(x0 + (Double(i) + 0.5) * step), 0), image.width - 1)
                    let y = min(max(Int(y0 + (Double(j) + 0.5) * step), 0), image.height - 1)
                    let k = (y * image.width + x) * 3
                    patch[j * n + i] = Double(p[k]) - Double(p[k + 2])
                }
            }
        }
        let mean = patch.reduce(0, +) / Double(patch.count)
        // Hann window so the patch edges do not leak into every frequency.
        let hann = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * (Double($0) + 0.5) / Double(n)) }
        for j in 0..<n { for i in 0..<n { patch[j * n + i] = (patch[j * n + i] - mean) * hann[i] * hann[j] } }
        let power = powerSpectrum(patch, n: n)

        var rings: [Int: [Double]] = [:]
        var peak = (value: 0.0, radius: 0)
        for v in 0..<(n / 2 + 1) {
            for u in 0..<n {
                let fu = u <= n / 2 ? u : u - n
                let radius = Int((Double(fu * fu + v * v)).squareRoot().rounded())
                guard band.contains(radius) else { continue }
                let value = power[v * n + u]
                rings[radius, default: []].append(value)
                if value > peak.value { peak = (value, radius) }
            }
        }
        guard let ring = rings[peak.radius], !ring.isEmpty else { return 0 }
        let median = ring.sorted()[ring.count / 2]
        return median > 1e-9 ? peak.value / median : 0
    }

    /// |DFT|² of a real n x n patch, rows v in 0...n/2 (the rest mirrors them), by separable DFTs.
    private static func powerSpectrum(_ patch: [Double], n: Int) -> [Double] {
        let half = n / 2 + 1
        var cosTable = [Double](repeating: 0, count: n * n), sinTable = cosTable
        for k in 0..<n { for t in 0..<n {
            let a = 2 * Double.pi * Double(k * t % n) / Double(n)
            cosTable[k * n + t] = cos(a)
            sinTable[k * n + t] = sin(a)
        } }
        // Along x for every row.
        var re = [Double](repeating: 0, count: n * n), im = re
        for y in 0..<n {
            for u in 0..<n {
                var sr = 0.0, si = 0.0
                for x in 0..<n {
                    let value = patch[y * n + x]
                    sr += value * cosTable[u * n + x]
                    si -= value * sinTable[u * n + x]
                }
                re[y * n + u] = sr
                im[y * n + u] = si
            }
        }
        // Then along y, only for the rows kept.
        var power = [Double](repeating: 0, count: half * n)
        for v in 0..<half {
            for u in 0..<n {
                var sr = 0.0, si = 0.0
                for y in 0..<n {
                    let c = cosTable[v * n + y], s = sinTable[v * n + y]
                    let a = re[y * n + u], b = im[y * n + u]
                    sr += a * c + b * s
                    si += b * c - a * s
                }
                power[v * n + u] = sr * sr + si * si
            }
        }
        return power
    }
}

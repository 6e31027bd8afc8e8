import Foundation
import Testing
import VigilCore
@testable import VigilFace

@Suite struct ScreenPatternMeterTests {
    /// A skin-coloured 320x320 frame with smooth shading and sensor noise, optionally with a
    /// chromatic stripe pattern (what a screen's subpixels beat into).
    static func frame(stripes amplitude: Double, period: Double = 9, seed: UInt64 = 1) throws -> Image {
        var state = seed
        func noise() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 40) / Double(1 << 24) - 0.5
        }
        var rgb = [UInt8](repeating: 0, count: 320 * 320 * 3)
        for y in 0..<320 {
            for x in 0..<320 {
                let shade = 150 + 40 * sin(Double(x) / 90) * cos(Double(y) / 110)
                let wave = amplitude * sin(2 * Double.pi * (Double(x) * 0.8 + Double(y) * 0.6) / period)
                let i = (y * 320 + x) * 3
                rgb[i] = UInt8(min(255, max(0, shade * 1.15 + wave + 6 * noise())))
                rgb[i + 1] = UInt8(min(255, max(0, shade * 0.9 + 6 * noise())))
                rgb[i + 2] = UInt8(min(255, max(0, shade * 0.75 - wave + 6 * noise())))
            }
        }
        return try Image(rgb: rgb, width: 320, height: 320)
    }

    let box = Rect(x: 60, y: 60, width: 200, height: 200)

    @Test func smoothSkinHasNoSpectralPeak() throws {
        for seed in 1...5 as ClosedRange<UInt64> {
            #expect(ScreenPatternMeter.periodicity(in: try Self.frame(stripes: 0, seed: seed), box: box) < 25)
        }
    }

    @Test func faintMoireStandsOutOfTheSpectrum() throws {
        #expect(ScreenPatternMeter.periodicity(in: try Self.frame(stripes: 6), box: box) > 100)
    }

    @Test func aBoxOutsideTheImageIsMeasuredWithoutCrashing() throws {
        let value = ScreenPatternMeter.periodicity(in: try Self.frame(stripes: 0), box: Rect(x: 300, y: -50, width: 400, height: 400))
        #expect(value.isFinite)
    }
}

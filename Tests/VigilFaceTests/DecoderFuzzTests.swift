import Foundation
import Testing
import VigilCore
@testable import VigilFace

@Suite struct DecoderFuzzTests {
    static func mutate(_ seed: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            guard !bytes.isEmpty else { break }
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            case 1: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            case 2: bytes = Array(bytes.prefix(at))
            case 3: bytes.insert(contentsOf: (0..<Int.random(in: 1...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: at)
            case 4: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...64, using: &rng)))
            case 5: // extreme values where lengths and dimensions live
                for i in at..<min(bytes.count, at + 4) { bytes[i] = [0x00, 0xFF, 0x7F, 0x80].randomElement(using: &rng)! }
            default: // duplicate a region, as a repeated segment or chunk would
                let end = min(bytes.count, at + Int.random(in: 1...256, using: &rng))
                bytes.insert(contentsOf: bytes[at..<end], at: end)
            }
        }
        return bytes
    }

    @Test func tenThousandMutatedImagesNeverCrashOrExceedThePixelLimit() throws {
        let small = try Fixtures.image("obama.jpg").resized(width: 48, height: 60)
        let seeds = [small.jpegData(quality: 80), small.pngData(), ImageDecodingTests.gradient(width: 16, height: 12).jpegData()]
        let maxPixels = 64 * 64
        var rng = SplitMix64(state: 20261202)
        var decoded = 0
        var errors: [String: Int] = [:]
        for iteration in 0..<10_000 {
            let input = Self.mutate(seeds[iteration % seeds.count], &rng)
            do {
                let image = try Image(encoded: input, maxPixels: maxPixels)
                #expect(image.width * image.height <= maxPixels, "iteration \(iteration)")
                #expect(image.rgb.count == image.width * image.height * 3, "iteration \(iteration)")
                decoded += 1
            } catch {
                errors[error.code, default: 0] += 1
            }
        }
        // The corpus must exercise both the decoder and the refusals, or the test proves nothing.
        #expect(decoded > 500)
        for code in ["truncated", "malformed", "unsupported_format"] { #expect(errors[code, default: 0] > 50, "\(code): \(errors)") }
    }
}

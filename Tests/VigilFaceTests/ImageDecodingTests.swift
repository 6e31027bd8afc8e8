import Foundation
import Testing
import VigilCore
@testable import VigilFace
import VigilTestSupport

@Suite struct ImageDecodingTests {
    /// A small generated image: a colour gradient, so encoders have something to work on.
    static func gradient(width: Int = 64, height: Int = 48) -> Image {
        var rgb = [UInt8]()
        for y in 0..<height {
            for x in 0..<width { rgb += [UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x + y) % 256)] }
        }
        return try! Image(rgb: rgb, width: width, height: height)
    }

    @Test func decodesAJPEGPhotoAtItsHeaderSize() throws {
        let image = try Fixtures.image("obama.jpg")
        #expect(image.width == 910 && image.height == 1137)
        #expect(image.rgb.count == 910 * 1137 * 3)
        #expect(Set(image.rgb.prefix(30_000)).count > 50)
    }

    @Test func decodesAnRGBAPNGToRGB() throws {
        let image = try Fixtures.image("obama-rgba.png")
        #expect(image.width == 626 && image.height == 1200)
        #expect(image.rgb.count == 626 * 1200 * 3)
    }

    @Test func pngRoundTripIsLossless() throws {
        let original = Self.gradient()
        let decoded = try Image(encoded: original.pngData())
        #expect(decoded.rgb == original.rgb)
    }

    @Test func jpegRoundTripKeepsSizeAndApproximatePixels() throws {
        let original = Self.gradient()
        let decoded = try Image(encoded: original.jpegData(quality: 95))
        #expect(decoded.width == 64 && decoded.height == 48)
        let error = zip(decoded.rgb, original.rgb).map { abs(Int($0) - Int($1)) }.reduce(0, +) / original.rgb.count
        #expect(error < 6)
    }

    @Test func bgraBuffersAreSwizzledAndStrideIsHonoured() throws {
        // 2x1 pixels, 12-byte rows (4 bytes of padding): blue then red.
        let bgra: [UInt8] = [255, 0, 0, 255, 0, 0, 255, 255, 9, 9, 9, 9]
        let image = try Image(bgra: bgra, width: 2, height: 1, bytesPerRow: 12)
        #expect(image.rgb == [0, 0, 255, 255, 0, 0])
    }

    @Test func emptyInputIsRefused() {
        #expect(throws: ImageError.empty) { try Image(encoded: Data()) }
    }

    @Test func otherFormatsAreRefused() {
        #expect(throws: ImageError.unsupportedFormat) { try Image(encoded: Data("GIF89a not an image".utf8)) }
    }

    @Test func truncatedJPEGIsRefused() throws {
        let data = try Fixtures.data("obama.jpg")
        for fraction in [0.0005, 0.01, 0.5, 0.99] {
            #expect(throws: ImageError.truncated) { try Image(encoded: data.prefix(Int(Double(data.count) * fraction))) }
        }
    }

    @Test func truncatedPNGIsRefused() throws {
        let data = Self.gradient().pngData()
        for cut in [4, 20, data.count / 2, data.count - 1] {
            #expect(throws: ImageError.truncated) { try Image(encoded: data.prefix(cut)) }
        }
    }

    @Test func oversizedPNGIsRefusedFromItsHeader() throws {
        var data = Self.gradient().pngData()
        // IHDR width and height sit at bytes 16-23; announce 30000 x 30000.
        let big: [UInt8] = [0, 0, 0x75, 0x30]
        data.replaceSubrange(16..<20, with: big)
        data.replaceSubrange(20..<24, with: big)
        #expect(throws: ImageError.tooLarge(width: 30000, height: 30000, maxPixels: Image.defaultMaxPixels)) {
            try Image(encoded: data)
        }
    }

    /// A strip of 240000x35 all-white pixels is an 8 KB PNG within any pixel limit, yet made the
    /// document reader allocate 2 GB: shapes longer than 8192 on a side, or more than 8 times
    /// longer than wide, are refused from the header, before any pixel is decoded.
    @Test func extremeShapesAreRefusedFromTheirHeaderWhateverTheirArea() throws {
        let png = Self.gradient().pngData()
        func announcing(_ width: Int, _ height: Int) -> [UInt8] {
            var data = png
            for (offset, value) in [(16, width), (20, height)] {
                data.replaceSubrange(offset..<(offset + 4), with: (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) })
            }
            return data
        }
        for (width, height) in [(240_000, 35), (35, 240_000), (8193, 1025), (1_000_000, 1), (90, 10)] {
            #expect(throws: ImageError.extremeShape(width: width, height: height)) {
                try Image(encoded: announcing(width, height), maxPixels: 10_000_000)
            }
        }
        // The limits themselves are shapes an image may have.
        let strip = try Image(rgb: [UInt8](repeating: 255, count: 80 * 10 * 3), width: 80, height: 10)
        #expect(try Image(encoded: strip.pngData()).width == 80)
        let tooLong = try Image(rgb: [UInt8](repeating: 255, count: 81 * 10 * 3), width: 81, height: 10)
        #expect(throws: ImageError.extremeShape(width: 81, height: 10)) { try Image(encoded: tooLong.jpegData()) }
    }

    @Test func oversizedJPEGIsRefusedFromItsHeader() throws {
        var data = Self.gradient().jpegData()
        let sof = try #require(data.indices.first { data[$0] == 0xFF && data[$0 + 1] == 0xC0 })
        data.replaceSubrange((sof + 5)..<(sof + 9), with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: ImageError.tooLarge(width: 65535, height: 65535, maxPixels: Image.defaultMaxPixels)) {
            try Image(encoded: data)
        }
        #expect(throws: ImageError.tooLarge(width: 64, height: 48, maxPixels: 1000)) {
            try Image(encoded: Self.gradient().jpegData(), maxPixels: 1000)
        }
    }

    @Test func aJPEGWithMoreScansThanAnyEncoderWritesIsRefusedBeforeDecoding() throws {
        for scans in [ImageHeader.maxScans + 1, 200_000] {
            let bomb = HostileImages.scanBomb(from: Self.gradient().jpegData(), scans: scans)
            #expect(throws: ImageError.unsupportedVariant("more than \(ImageHeader.maxScans) scans")) { try Image(encoded: bomb) }
        }
        let allowed = HostileImages.scanBomb(from: Self.gradient().jpegData(), scans: ImageHeader.maxScans)
        #expect(try allowed.withUnsafeBytes { try ImageHeader(parsing: $0) }.width == 64)
    }

    @Test func corruptScanDataGivesAnImageOrATypedError() throws {
        var data = Self.gradient().jpegData()
        let sos = try #require(data.indices.first { data[$0] == 0xFF && data[$0 + 1] == 0xDA })
        for i in stride(from: sos + 20, to: data.count - 4, by: 7) { data[i] = 0xFF }
        do {
            let image = try Image(encoded: data)
            #expect(image.width == 64)
        } catch {
            #expect(error.code == "malformed")
        }
    }

    @Test func invalidRawBuffersAreRefused() {
        #expect(throws: ImageError.self) { try Image(rgb: [1, 2, 3], width: 2, height: 1) }
        #expect(throws: ImageError.self) { try Image(rgb: [], width: 0, height: 0) }
        #expect(throws: ImageError.self) { try Image(bgra: [0, 0, 0], width: 1, height: 1) }
        #expect(throws: ImageError.self) { try Image(bgra: [0, 0, 0, 0], width: 1, height: 1, bytesPerRow: 2) }
    }
}

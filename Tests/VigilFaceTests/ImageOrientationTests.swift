import Foundation
import Testing
import VigilCore
@testable import VigilFace
import VigilTestSupport

/// Exif orientation is applied when decoding, as every viewer applies it: a phone's portrait
/// photo stored sideways is analysed as the person took it.
@Suite struct ImageOrientationTests {
    /// Stored 48x32, grey, with a red block at its top-left corner and a green one at its
    /// top-right: enough to tell all eight orientations apart, even through JPEG.
    static let stored: Image = {
        var rgb = [UInt8](repeating: 128, count: 48 * 32 * 3)
        for y in 0..<16 {
            for x in 0..<16 {
                rgb.replaceSubrange((y * 48 + x) * 3..<(y * 48 + x) * 3 + 3, with: [230, 20, 20])
                rgb.replaceSubrange((y * 48 + 32 + x) * 3..<(y * 48 + 32 + x) * 3 + 3, with: [20, 200, 20])
            }
        }
        return try! Image(rgb: rgb, width: 48, height: 32)
    }()

    enum Corner { case topLeft, topRight, bottomLeft, bottomRight }

    /// Where the stored top-left and top-right corners show, from the Exif specification's
    /// wording ("the 0th row is the visual right-hand side, the 0th column the visual top", ...).
    static let corners: [Int: (Corner, Corner)] = [
        1: (.topLeft, .topRight), 2: (.topRight, .topLeft), 3: (.bottomRight, .bottomLeft), 4: (.bottomLeft, .bottomRight),
        5: (.topLeft, .bottomLeft), 6: (.topRight, .bottomRight), 7: (.bottomRight, .topRight), 8: (.bottomLeft, .topLeft),
    ]

    static func colour(of image: Image, at corner: Corner) -> [UInt8] {
        let (x, y) = switch corner {
        case .topLeft: (4, 4)
        case .topRight: (image.width - 5, 4)
        case .bottomLeft: (4, image.height - 5)
        case .bottomRight: (image.width - 5, image.height - 5)
        }
        let i = (y * image.width + x) * 3
        return Array(image.rgb[i..<i + 3])
    }

    static func check(_ decoded: Image, orientation: Int) throws {
        let (red, green) = try #require(corners[orientation])
        #expect((decoded.width, decoded.height) == (orientation >= 5 ? (32, 48) : (48, 32)))
        let r = colour(of: decoded, at: red), g = colour(of: decoded, at: green)
        #expect(r[0] > 180 && r[1] < 70, "orientation \(orientation): red corner reads \(r)")
        #expect(g[1] > 150 && g[0] < 70, "orientation \(orientation): green corner reads \(g)")
    }

    @Test(arguments: 1...8) func everyOrientationOfAJPEGShowsTheImageAsTaken(_ orientation: Int) throws {
        let bytes = ImageBytes.jpeg(Self.stored.jpegData(quality: 95), exif: ImageBytes.exifTIFF(orientation: orientation, littleEndian: false))
        try Self.check(try Image(encoded: bytes), orientation: orientation)
    }

    @Test(arguments: 1...8) func everyOrientationOfAPNGShowsTheImageAsTaken(_ orientation: Int) throws {
        let bytes = ImageBytes.png(Self.stored.pngData(), exif: ImageBytes.exifTIFF(orientation: orientation, littleEndian: true))
        try Self.check(try Image(encoded: bytes), orientation: orientation)
    }

    /// A broken Exif block is ignored, as viewers ignore it: the image decodes as stored.
    @Test(arguments: [[UInt8](), [0x4D, 0x4D, 0, 42, 0xFF, 0xFF, 0xFF, 0xF0], Array(ImageBytes.exifTIFF(orientation: 6, littleEndian: true).prefix(19)),
                      ImageBytes.exifTIFF(orientation: 9, littleEndian: true), ImageBytes.exifTIFF(orientation: 0, littleEndian: false)])
    func aMalformedExifBlockLeavesTheImageAsStored(_ tiff: [UInt8]) throws {
        let decoded = try Image(encoded: ImageBytes.jpeg(Self.stored.jpegData(quality: 95), exif: tiff))
        try Self.check(decoded, orientation: 1)
    }

    /// A portrait stored sideways, as phones store it, with its tag: one face, upright.
    @Test(arguments: [6, 8]) func aPortraitStoredSidewaysIsAnalysedUpright(_ orientation: Int) throws {
        let photo = try Fixtures.image("obama.jpg")
        let analyzer = try Fixtures.analyzer(.photos)
        let upright = try #require(try analyzer.detect(in: photo).first)
        // The stored pixels: the photo turned against the tag, so that applying the tag restores it.
        let sideways = try #require(ImageOrientation(rawValue: orientation == 6 ? 8 : 6)).apply(to: photo.rgb, width: photo.width, height: photo.height)
        let stored = try Image(rgb: sideways.rgb, width: sideways.width, height: sideways.height)
        #expect(try analyzer.detect(in: stored).isEmpty)
        let bytes = ImageBytes.jpeg(stored.jpegData(quality: 92), exif: ImageBytes.exifTIFF(orientation: orientation, littleEndian: true))
        let decoded = try Image(encoded: bytes)
        #expect((decoded.width, decoded.height) == (photo.width, photo.height))
        let face = try #require(try analyzer.detect(in: decoded).first)
        #expect(abs(face.box.x - upright.box.x) < 10 && abs(face.box.y - upright.box.y) < 10)
        #expect(abs(face.pose.roll) < 10)
    }
}

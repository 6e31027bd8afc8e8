import Foundation
import Testing
@testable import VigilFace
import VigilTestSupport

/// A phone's portrait photo, stored sideways with its Exif orientation tag, compares as the
/// person took it (it gave `no_face` before the tag was applied).
@Suite struct OrientationCLITests {
    @Test func compareReadsAPhotoStoredSidewaysWithItsOrientationTag() throws {
        let photo = try Image(contentsOf: URL(fileURLWithPath: "\(CLITests.fixtures)/obama.jpg"))
        // Stored turned a quarter clockwise; tag 8 says to turn it back counter-clockwise.
        let sideways = ImageOrientation.right.apply(to: photo.rgb, width: photo.width, height: photo.height)
        let stored = try Image(rgb: sideways.rgb, width: sideways.width, height: sideways.height).jpegData(quality: 92)
        let tagged = ImageBytes.jpeg(stored, exif: ImageBytes.exifTIFF(orientation: 8, littleEndian: false))
        let path = try CLITests.temporaryFile(Data(tagged), suffix: ".jpg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try CLITests.run(["compare", path, "\(CLITests.fixtures)/obama2.jpg"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect((result.json as? [String: Any])?["matched"] as? Bool == true)
    }
}

import Foundation
import Testing
import VigilFace
@testable import VigilDocument

/// Tesseract with the zone model reads OCR-B lines, small print included, with a confidence for
/// every character.
@Suite struct MRZLineRecognizerTests {
    static let recognizer = Result { () throws(MRZLineRecognizer.Unavailable) in try MRZLineRecognizer(modelsDirectory: FaceModels.defaultDirectory) }

    /// Each line of ICAO's three specimens, at capitals of 30 pixels and of 12: the template
    /// matcher reads neither size under 16 pixels.
    @Test(arguments: [30, 20, 16]) func eachSpecimenLineReadsCharacterForCharacter(_ pixelHeight: Int) throws {
        let recognizer = try Self.recognizer.get()
        let renderer = MRZRenderer(font: try OCRBFont(pixelHeight: pixelHeight))
        for line in MRZTests.td3 + MRZTests.td2 + MRZTests.td1 {
            let read = recognizer.read(renderer.render([line], margin: pixelHeight))
            #expect(String(read.map(\.value)) == line)
            #expect(read.allSatisfy { $0.confidence > 50 }, "\(read.map(\.confidence))")
        }
    }

    @Test func aBlankLineReadsNothing() throws {
        let read = try Self.recognizer.get().read(PageImage(width: 400, height: 40))
        #expect(read.isEmpty, "\(read)")
    }

    /// Tesseract's OpenMP sections run on the reading thread alone: after a read, that thread
    /// may start no parallel level (libgomp, loaded with Tesseract, says so).
    @Test func aReadRunsOnTheCallingThreadAlone() throws {
        let renderer = MRZRenderer(font: try OCRBFont(pixelHeight: 30))
        _ = try Self.recognizer.get().read(renderer.render([MRZTests.td3[0]], margin: 30))
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "omp_get_max_active_levels"))
        let levels = unsafeBitCast(symbol, to: (@convention(c) () -> Int32).self)
        #expect(levels() == 0)
    }
}

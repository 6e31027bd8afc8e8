import Testing
@testable import VigilDocument

@Suite struct PageImageTests {
    /// `samples` gives exactly what `sample` gives at each crossing, inside the image (the fast
    /// path) and across its edge (white outside).
    @Test func samplingAGridGivesEachPointsSample() {
        var image = PageImage(width: 23, height: 17)
        for i in image.pixels.indices { image.pixels[i] = UInt8((i * 37 + i / 23 * 11) % 256) }
        for (xs, ys) in [([0.0, 1.25, 7.5, 21.9], [0.0, 3.3, 15.99]), ([-0.5, 4.2, 22.4], [-1.2, 8.0, 16.6])] {
            let expected = ys.flatMap { y in xs.map { x in image.sample(x, y) } }
            #expect(image.samples(xs: xs, ys: ys) == expected)
        }
    }
}

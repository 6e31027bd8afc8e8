import Testing
@testable import VigilDocument

@Suite struct PageImageTests {
    /// Shrinking keeps the proportions and gives each output pixel the mean of the block it
    /// covers; an image no larger than asked is itself.
    @Test func shrinkingAveragesEachCoveredBlockAndKeepsTheProportions() {
        var image = PageImage(width: 40, height: 20)
        for y in 0..<20 { for x in 0..<40 { image[x, y] = x % 2 == 0 ? 100 : 200 } }
        let shrunk = image.shrunk(toAtMost: 200)
        #expect(shrunk.width == 20 && shrunk.height == 10)
        #expect(shrunk.pixels.allSatisfy { $0 == 150 })
        #expect(image.shrunk(toAtMost: 800) == image)
        let strip = PageImage(width: 8000, height: 1000).shrunk(toAtMost: 2_100_000)
        #expect(strip.width * strip.height <= 2_100_000 && abs(Double(strip.width) / Double(strip.height) - 8) < 0.05)
    }

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

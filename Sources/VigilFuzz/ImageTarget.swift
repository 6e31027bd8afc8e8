import VigilFace

/// JPEG and PNG decoding as frames and photos get it (`Image(encoded:maxPixels:)`), from a
/// camera frame and a PNG, with JPEG-aware mutations.
struct ImageTarget: FuzzTarget {
    let name = "image"
    let jpeg: [UInt8], png: [UInt8]

    func run(index: Int, seed: UInt64) -> FuzzOutcome {
        var mutator = Mutator(seed: seed, index: index)
        let input = index % 4 == 3 ? mutator.bytes(png) : mutator.jpeg(jpeg)
        // Any typed error is an answer; only a crash or a hang is not.
        return (try? Image(encoded: input, maxPixels: 1920 * 1080)) == nil ? .handled : .accepted
    }
}

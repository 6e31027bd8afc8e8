/// Removes what lies behind the text: the paper's pattern, uneven light, and the table or hand
/// around the document. A black top-hat (the image closed by a square of `side` pixels, minus
/// the image) keeps only dark marks thinner than the square, such as strokes of text, and turns
/// every wider region, dark or light, to zero; the result is inverted back to dark ink on white.
/// Without it a dark table beside the page is "ink" in every row, and no line of text stands out.
public enum BackgroundRemoval {
    /// The square's side for a photo `width` pixels wide: three times the strokes of a TD1 zone
    /// that spans the photo, and far narrower than a table or a hand.
    public static func side(forWidth width: Int) -> Int { max(7, width / 60) | 1 }

    /// `image` with everything wider than `side` pixels made white.
    public static func flattened(_ image: PageImage, side: Int) -> PageImage {
        // Closing: the largest value around each pixel, then the smallest of those.
        let closed = filter(filter(image, side: side, keep: max), side: side, keep: min)
        var out = image
        for i in out.pixels.indices { out.pixels[i] = 255 - (closed.pixels[i] - min(closed.pixels[i], image.pixels[i])) }
        return out
    }

    /// The `keep` (max or min) of each `side` x `side` square, rows then columns.
    static func filter(_ image: PageImage, side: Int, keep: (UInt8, UInt8) -> UInt8) -> PageImage {
        var rows = image
        var scratch = [UInt8](repeating: 0, count: 3 * (image.width + 2 * (side / 2)))
        image.pixels.withUnsafeBufferPointer { source in
            rows.pixels.withUnsafeMutableBufferPointer { target in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    for y in 0..<image.height {
                        row(source, target, start: y * image.width, count: image.width, side: side, keep: keep, scratch: scratch)
                    }
                }
            }
        }
        rows.pixels = columns(rows, side: side, keep: keep)
        return rows
    }

    /// The same running extreme down every column at once, a row at a time: walking down one
    /// column touches a new cache line at every pixel, and this pass took as long as all the
    /// others together.
    private static func columns(_ image: PageImage, side: Int, keep: (UInt8, UInt8) -> UInt8) -> [UInt8] {
        let width = image.width, count = image.height, half = side / 2, padded = count + 2 * half
        var prefix = [UInt8](repeating: 0, count: padded * width), suffix = prefix, out = [UInt8](repeating: 0, count: count * width)
        image.pixels.withUnsafeBufferPointer { source in
            prefix.withUnsafeMutableBufferPointer { prefix in
                suffix.withUnsafeMutableBufferPointer { suffix in
                    // Row i of the padded column is source row i - half, its ends repeated.
                    func row(_ i: Int) -> Int { min(count - 1, max(0, i - half)) * width }
                    for i in 0..<padded {
                        let from = row(i), at = i * width
                        if i % side == 0 {
                            for x in 0..<width { prefix[at + x] = source[from + x] }
                        } else {
                            for x in 0..<width { prefix[at + x] = keep(prefix[at - width + x], source[from + x]) }
                        }
                    }
                    for i in stride(from: padded - 1, through: 0, by: -1) {
                        let from = row(i), at = i * width
                        if i % side == side - 1 || i == padded - 1 {
                            for x in 0..<width { suffix[at + x] = source[from + x] }
                        } else {
                            for x in 0..<width { suffix[at + x] = keep(suffix[at + width + x], source[from + x]) }
                        }
                    }
                    out.withUnsafeMutableBufferPointer { out in
                        for i in 0..<count {
                            let s = i * width, p = min(padded - 1, i + side - 1) * width
                            for x in 0..<width { out[s + x] = keep(suffix[s + x], prefix[p + x]) }
                        }
                    }
                }
            }
        }
        return out
    }

    /// van Herk and Gil-Werman's running extreme over a window of `side` centred on each of the
    /// `count` values of a row from `start`: three comparisons a value whatever the window
    /// (blocks of `side` with their prefix and suffix extremes). `columns` is the same, down
    /// every column at once. `scratch` holds three padded rows.
    private static func row(_ source: UnsafeBufferPointer<UInt8>, _ target: UnsafeMutableBufferPointer<UInt8>, start: Int,
                            count: Int, side: Int, keep: (UInt8, UInt8) -> UInt8, scratch: UnsafeMutableBufferPointer<UInt8>) {
        let half = side / 2
        let padded = count + 2 * half
        let line = scratch.baseAddress!, prefix = line + padded, suffix = prefix + padded
        // The row with its end values repeated over half a window on either side.
        for i in 0..<half {
            line[i] = source[start]
            line[half + count + i] = source[start + count - 1]
        }
        for i in 0..<count { line[half + i] = source[start + i] }
        // Block by block: a remainder at every value cost more than the comparisons.
        var block = 0
        while block < padded {
            let end = min(block + side, padded)
            prefix[block] = line[block]
            for i in (block + 1)..<end { prefix[i] = keep(prefix[i - 1], line[i]) }
            suffix[end - 1] = line[end - 1]
            for i in stride(from: end - 2, through: block, by: -1) { suffix[i] = keep(suffix[i + 1], line[i]) }
            block = end
        }
        for i in 0..<count {
            // The window of output i covers padded positions i ... i + side - 1.
            target[start + i] = keep(suffix[i], prefix[min(padded - 1, i + side - 1)])
        }
    }
}

import Foundation
import VigilFace

/// Writes frames as a Y4M video (4:2:0, full-range BT.601), the format Chromium's fake camera
/// plays (`--use-file-for-fake-video-capture`).
public struct Y4MWriter {
    /// Frame size and rate.
    public let width: Int, height: Int, rate: FrameRate
    private let handle: FileHandle

    /// Creates (or truncates) `url` and writes the stream header; the size must be even.
    public init(url: URL, width: Int, height: Int, rate: FrameRate) throws {
        precondition(width % 2 == 0 && height % 2 == 0, "4:2:0 needs an even frame size")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        handle = try FileHandle(forWritingTo: url)
        self.width = width
        self.height = height
        self.rate = rate
        try handle.write(contentsOf: Data("YUV4MPEG2 W\(width) H\(height) F\(rate.frames):\(rate.seconds) Ip A1:1 C420jpeg\n".utf8))
    }

    /// Appends one frame of the writer's size.
    public func write(_ image: Image) throws {
        precondition(image.width == width && image.height == height, "every frame has the stream's size")
        try handle.write(contentsOf: Data("FRAME\n".utf8) + Data(Self.planes(image)))
    }

    /// Closes the file.
    public func close() throws { try handle.close() }

    /// Y at full resolution, then U and V averaged over 2x2 blocks (JPEG's YCbCr).
    static func planes(_ image: Image) -> [UInt8] {
        let w = image.width, h = image.height
        var out = [UInt8](repeating: 0, count: w * h * 3 / 2)
        let clamp = { (v: Double) in UInt8(max(0, min(255, v.rounded()))) }
        image.rgb.withUnsafeBufferPointer { rgb in
            for i in 0..<(w * h) {
                let r = Double(rgb[3 * i]), g = Double(rgb[3 * i + 1]), b = Double(rgb[3 * i + 2])
                out[i] = clamp(0.299 * r + 0.587 * g + 0.114 * b)
            }
            let cw = w / 2
            for y in 0..<(h / 2) {
                for x in 0..<cw {
                    var r = 0.0, g = 0.0, b = 0.0
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let p = 3 * ((2 * y + dy) * w + 2 * x + dx)
                        r += Double(rgb[p]); g += Double(rgb[p + 1]); b += Double(rgb[p + 2])
                    }
                    r /= 4; g /= 4; b /= 4
                    out[w * h + y * cw + x] = clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b)
                    out[w * h + cw * (h / 2) + y * cw + x] = clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b)
                }
            }
        }
        return out
    }
}

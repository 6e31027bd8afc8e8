import Foundation
import VigilFace
import VigilSDK

/// Frames of a Y4M video (4:2:0, as `vigil synth` and Chromium's fake camera use), encoded as
/// JPEG and timed by the header's frame rate; played at that pace.
struct Y4MFrameSource: FrameSource {
    private let handle: FileHandle
    private let width: Int, height: Int, intervalMs: Double
    private var index = 0
    var isPaced: Bool { true }

    init(url: URL) throws {
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw CLIError(code: "unreadable_video", message: "cannot open \(url.path)") }
        self.handle = handle
        var header: [UInt8] = []
        while header.count < 256, let byte = try handle.read(upToCount: 1)?.first, byte != 0x0A { header.append(byte) }
        let fields = String(decoding: header, as: UTF8.self).split(separator: " ")
        guard fields.first == "YUV4MPEG2" else { throw CLIError(code: "invalid_video", message: "\(url.lastPathComponent) is not a Y4M file") }
        func field(_ tag: Character) -> Substring? { fields.first { $0.first == tag }?.dropFirst() }
        let rate = field("F")?.split(separator: ":").compactMap { Double($0) } ?? [10, 1]
        guard let w = field("W").flatMap({ Int($0) }), let h = field("H").flatMap({ Int($0) }), (16...4096).contains(w), (16...4096).contains(h),
              w % 2 == 0, h % 2 == 0, rate.count == 2, rate[0] > 0, rate[1] > 0 else {
            throw CLIError(code: "invalid_video", message: "the Y4M header needs even W and H (16-4096) and a frame rate")
        }
        if let colour = field("C"), !colour.hasPrefix("420") { throw CLIError(code: "invalid_video", message: "only 4:2:0 Y4M is read") }
        width = w
        height = h
        intervalMs = 1000 * rate[1] / rate[0]
    }

    mutating func nextFrame(elapsedMs: Int, screen: CaptureScreen) throws -> CapturedFrame? {
        guard let marker = try handle.read(upToCount: 6), marker.count == 6 else { return nil }
        guard marker.starts(with: Array("FRAME".utf8)) else { throw CLIError(code: "invalid_video", message: "frame \(index) has no FRAME marker") }
        var tail = marker.last!
        while tail != 0x0A, let byte = try handle.read(upToCount: 1)?.first { tail = byte }   // frame parameters
        let lumaCount = width * height, chromaCount = lumaCount / 4
        guard let planes = try handle.read(upToCount: lumaCount + 2 * chromaCount), planes.count == lumaCount + 2 * chromaCount else { return nil }
        let bytes = [UInt8](planes)
        var rgb = [UInt8](repeating: 0, count: lumaCount * 3)
        for y in 0..<height {
            for x in 0..<width {
                let luma = Double(bytes[y * width + x])
                let c = (y / 2) * (width / 2) + x / 2
                let u = Double(bytes[lumaCount + c]) - 128, v = Double(bytes[lumaCount + chromaCount + c]) - 128
                let o = (y * width + x) * 3
                rgb[o] = UInt8(clamping: Int((luma + 1.402 * v).rounded()))
                rgb[o + 1] = UInt8(clamping: Int((luma - 0.344136 * u - 0.714136 * v).rounded()))
                rgb[o + 2] = UInt8(clamping: Int((luma + 1.772 * u).rounded()))
            }
        }
        defer { index += 1 }
        return CapturedFrame(jpeg: try Image(rgb: rgb, width: width, height: height).jpegData(quality: 90), timestampMs: Int(Double(index) * intervalMs))
    }
}

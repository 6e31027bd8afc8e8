import Foundation

/// How a real camera delivers a scene: frame rate, sensor size and orientation, light, JPEG
/// quality and motion blur. A rendered frame is "developed" under these conditions into what the
/// capture page would upload.
public struct CameraConditions: Sendable, Hashable, CustomStringConvertible {
    /// The room's light as the camera sees it.
    public enum Light: String, Sendable, Hashable, CaseIterable {
        /// Even, sufficient light.
        case normal
        /// A dim room: `dimExposure` of the normal exposure and the strong sensor noise of high gain.
        case dim
        /// A bright window behind the person: the background blown out, the face in shadow.
        case backlit
    }

    /// Frames the camera delivers.
    public var rate = FrameRate(frames: 10)
    /// The camera's frame size (portrait when taller than wide).
    public var width = 640, height = 480
    /// The light.
    public var light = Light.normal
    /// The exposure in a dim room, a fraction of the normal one.
    public var dimExposure = 0.6
    /// JPEG quality of the uploads (0...100; the page uses 85).
    public var jpegQuality = 85
    /// Horizontal motion blur of a slow shutter.
    public var motionBlur = false

    /// 10 fps, 640x480, normal light, quality 85, no blur.
    public init() {}

    /// The frame size the page uploads: the shorter side scaled down to `analysisShortSide`,
    /// the aspect ratio kept (`ANALYSIS_SHORT_SIDE` in capture.js).
    public var analysisSize: (width: Int, height: Int) {
        let scale = min(1, Double(Self.analysisShortSide) / Double(min(width, height)))
        return (Int((Double(width) * scale).rounded()), Int((Double(height) * scale).rounded()))
    }
    /// The page's upload size limit (shorter side, pixels).
    public static let analysisShortSide = 480

    /// Sensor noise (deviation per channel) added on top of the session's own: a dim room's
    /// high gain.
    var extraNoise: Double { light == .dim ? 6 : 0 }

    /// `frame` as this camera delivers it to the page, scaled to the analysis size.
    public func develop(_ frame: PixelBuffer) -> PixelBuffer {
        var out = frame
        switch light {
        case .normal: break
        case .dim: out.scale(by: Float(dimExposure))
        case .backlit: out.backlight(centre: 0.55, edge: 1.9)
        }
        if motionBlur { out.blurHorizontally(radius: 2) }
        let size = analysisSize
        guard size.width != out.width || size.height != out.height else { return out }
        // Held upright, a phone frames the face across about half its width, as the page's oval
        // asks: a view 5/8 of the (landscape) scene's width, taller than the scene.
        let portrait = size.height > size.width && out.width > out.height
        return out.resampled(width: size.width, height: size.height, viewWidth: portrait ? Double(out.width) * 0.625 : nil)
    }

    /// "7.5 fps 720x1280 dim q60 blur": only what differs from the default is named, beyond the
    /// rate and size.
    public var description: String {
        var parts = ["\(rate)", "\(width)x\(height)"]
        if light == .dim { parts.append("dim \(Int((dimExposure * 100).rounded()))%") } else if light != .normal { parts.append(light.rawValue) }
        if jpegQuality != 85 { parts.append("q\(jpegQuality)") }
        if motionBlur { parts.append("blur") }
        return parts.joined(separator: " ")
    }

    /// The camera-conditions matrix: the default, then each factor varied alone (rates 5 to 30
    /// fps; portrait 720x1280 and 1280x720; dim and backlit; JPEG quality 60 and 90; motion
    /// blur), then all the hard ones at once.
    public static let matrix: [CameraConditions] = {
        let base = CameraConditions()
        var out = [base]
        for rate in FrameRate.cameraRates where rate != base.rate { out.append(base.with { $0.rate = rate }) }
        out.append(base.with { $0.width = 720; $0.height = 1280 })
        out.append(base.with { $0.width = 1280; $0.height = 720 })
        out.append(base.with { $0.light = .dim })
        out.append(base.with { $0.light = .backlit })
        out.append(base.with { $0.jpegQuality = 60 })
        out.append(base.with { $0.jpegQuality = 90 })
        out.append(base.with { $0.motionBlur = true })
        out.append(base.with {
            $0.rate = FrameRate(frames: 5); $0.width = 720; $0.height = 1280; $0.light = .dim; $0.jpegQuality = 60; $0.motionBlur = true
        })
        return out
    }()

    /// Ever dimmer rooms (exposure 60% down to 20%, with a dim room's noise), otherwise the
    /// default camera: how dim a room can be and still pass.
    public static let lightSweep: [CameraConditions] = [0.6, 0.45, 0.35, 0.25, 0.2].map { exposure in
        CameraConditions().with { $0.light = .dim; $0.dimExposure = exposure }
    }

    /// A copy changed by `change`.
    public func with(_ change: (inout CameraConditions) -> Void) -> CameraConditions {
        var copy = self
        change(&copy)
        return copy
    }
}

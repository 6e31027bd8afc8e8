import VigilCore
import VigilLiveness

/// What the capture page shows at one moment, as the device sees it.
public struct ScreenState: Sendable {
    /// The challenge on screen and when it appeared there, if any.
    public var prompt: (index: Int, kind: Motion, shownAtMs: Int)?
    /// The colour filling the screen, 0...1 per channel (white when no reflection step shows).
    public var color: (red: Double, green: Double, blue: Double) = (1, 1, 1)

    /// A screen with no prompt, white.
    public init() {}
}

/// Something in front of the camera: a synthetic person or an attack. Each call renders the
/// frame captured at `timestampMs` while the screen shows `screen`.
public protocol SyntheticCamera {
    /// The frame at `timestampMs` (ms since capture start, increasing).
    mutating func frame(at timestampMs: Int, screen: ScreenState) -> PixelBuffer
}

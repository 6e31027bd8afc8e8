/// The capture page's choice of which camera frames to upload (`offerFrame` in capture.js): each
/// new frame at most once, on a 10 fps grid with slack for camera jitter, a late frame moving the
/// grid instead of causing a burst. The simulator uses it so that a 15 or 30 fps camera reaches
/// the engine the way the page sends it.
public struct UploadPacer: Sendable {
    /// The grid's interval and the jitter tolerated around it (ms).
    public static let intervalMs = 100, slackMs = 20

    private var lastMs = -1
    private var nextDueMs = 0

    /// A pacer for a fresh capture.
    public init() {}

    /// Whether the frame captured at `captureMs` is uploaded; records it when it is.
    public mutating func admit(_ captureMs: Int) -> Bool {
        guard captureMs > lastMs, captureMs >= nextDueMs - Self.slackMs else { return false }
        lastMs = captureMs
        nextDueMs = max(nextDueMs + Self.intervalMs, captureMs + Self.intervalMs / 2)
        return true
    }
}

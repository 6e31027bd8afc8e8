/// The liveness engine as a whole.
public enum LivenessEngine {
    /// Changes whenever a check, a threshold or the decision changes, so an answer can be traced
    /// to the engine that gave it (`/healthz`, the SDK's `versionInfo`).
    // 1.1: a blink also counts when both eyes lose their detail (EyeDetail); a doubtful
    // track moves no challenge.
    public static let version = "1.1"
}

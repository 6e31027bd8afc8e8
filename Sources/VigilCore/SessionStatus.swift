/// Where a verification session is in its life.
public enum SessionStatus: String, Codable, CaseIterable, Sendable {
    /// Created by the tenant; no frame yet.
    case created
    /// Frames are arriving.
    case capturing
    /// The last frame is in; the decision is being made.
    case processing
    /// Decided: the result is signed and final.
    case completed
    /// Not finished before `expiresAt`.
    case expired
    /// Cancelled by the device or erased by the tenant.
    case cancelled

    /// Whether nothing more can happen to the session.
    public var isFinal: Bool { self == .completed || self == .expired || self == .cancelled }
}

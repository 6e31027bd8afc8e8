/// Vigil's release version, shared by the server and the SDK.
public enum VigilVersion {
    /// The version of this release.
    public static let current = "0.1.0"
}

/// The `ssid` the Swift SDK hands the app for its backend: `<device id>.<integrity>`. The server
/// reads it back at session creation: the integrity verdict is a risk signal, and velocity
/// counts the device across verdicts, so flipping the suffix does not reset it.
public struct DeviceSessionData: Hashable, Sendable {
    /// What the SDK's device checks found.
    public enum Integrity: String, Codable, CaseIterable, Sendable {
        /// No finding.
        case clean
        /// A debugger, injected library or similar sign was found.
        case flagged
        /// The app turned the checks off (`enableSecurity: false`).
        case unchecked
    }

    /// The persistent random device id (32 lowercase hex digits).
    public let deviceId: String
    /// The integrity verdict.
    public let integrity: Integrity

    /// The data for `deviceId` and `integrity`.
    public init(deviceId: String, integrity: Integrity) {
        self.deviceId = deviceId
        self.integrity = integrity
    }

    /// Parses an SDK `ssid`; nil for anything else (apps may send hints of their own).
    public init?(ssid: String) {
        let parts = ssid.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, Self.isDeviceId(String(parts[0])), let integrity = Integrity(rawValue: String(parts[1])) else { return nil }
        self.init(deviceId: String(parts[0]), integrity: integrity)
    }

    /// Whether `text` is an SDK device id: 32 lowercase hex digits (16 random bytes).
    public static func isDeviceId(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The `ssid` text.
    public var ssid: String { "\(deviceId).\(integrity.rawValue)" }
}

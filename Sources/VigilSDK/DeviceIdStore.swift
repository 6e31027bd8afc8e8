import Foundation
import VigilCore

/// The persistent random device id (`ssid`): 16 random bytes as hex, kept in a file under the
/// user's application-support (Apple) or XDG data directory (Linux).
struct DeviceIdStore: Sendable {
    let file: URL

    /// The default location.
    static var standard: DeviceIdStore {
        #if os(Linux)
        let base = ProcessInfo.processInfo.environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        #else
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        #endif
        return DeviceIdStore(file: base.appendingPathComponent("vigil/device-id"))
    }

    /// The stored id, made and stored on first use.
    func load() throws -> String {
        if let text = try? String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
           DeviceSessionData.isDeviceId(text) {
            return text
        }
        var generator = SystemRandomNumberGenerator()
        let id = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(id.utf8).write(to: file, options: .atomic)
        return id
    }
}

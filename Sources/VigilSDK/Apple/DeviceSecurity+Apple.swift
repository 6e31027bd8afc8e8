#if canImport(Darwin)
import Foundation
import Darwin
import MachO

extension DeviceSecurity {
    /// Places that exist only on jailbroken devices (package managers, tweak loaders, a shell).
    static let jailbreakPaths = ["/Applications/Cydia.app", "/Applications/Sileo.app", "/var/jb", "/private/var/lib/apt", "/etc/apt",
                                 "/usr/sbin/sshd", "/bin/bash", "/usr/lib/TweakInject", "/Library/MobileSubstrate/MobileSubstrate.dylib"]

    /// The Apple checks: a debugger (`P_TRACED`), inserted and hooking libraries, and on iOS
    /// devices jailbreak signs and a modified bundle. Signs, not proof: a determined attacker
    /// hides them, which is why the verdict never rests on the device alone.
    static func appleFindings() -> [String] {
        var found: [String] = []
        var info = kinfo_proc()
        var mib: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, getpid()]
        var size = MemoryLayout<kinfo_proc>.stride
        if sysctl(&mib, UInt32(mib.count), &info, &size, nil, 0) == 0, info.kp_proc.p_flag & P_TRACED != 0 {
            found.append("a debugger is attached (P_TRACED)")
        }
        if let inserted = ProcessInfo.processInfo.environment["DYLD_INSERT_LIBRARIES"], !inserted.isEmpty {
            found.append("libraries are inserted (DYLD_INSERT_LIBRARIES)")
        }
        var images: [String] = []
        for index in 0..<_dyld_image_count() {
            guard let name = _dyld_get_image_name(index) else { continue }
            let path = String(cString: name)
            let file = (path as NSString).lastPathComponent.lowercased()
            if instrumentationLibraries.contains(where: { file.contains($0) }), !images.contains(path) { images.append(path) }
        }
        found += images.map { "an instrumentation library is loaded (\($0))" }
        #if os(iOS) && !targetEnvironment(simulator)
        found += jailbreakPaths.filter { FileManager.default.fileExists(atPath: $0) }.map { "a jailbreak sign is present (\($0))" }
        let probe = "/private/vigil-\(UUID().uuidString)"
        if FileManager.default.createFile(atPath: probe, contents: Data()) {
            try? FileManager.default.removeItem(atPath: probe)
            found.append("the app can write outside its sandbox")
        }
        // A re-signed or patched bundle: cracking tools set SignerIdentity; a stripped signature loses CodeResources.
        if Bundle.main.object(forInfoDictionaryKey: "SignerIdentity") != nil
            || !FileManager.default.fileExists(atPath: Bundle.main.bundleURL.appendingPathComponent("_CodeSignature/CodeResources").path) {
            found.append("the app bundle was modified")
        }
        #endif
        return found
    }
}
#endif

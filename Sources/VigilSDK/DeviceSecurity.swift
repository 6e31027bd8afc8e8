import Foundation

/// The device checks run before and during capture: a debugger attached, injected or hooking
/// libraries. On Linux they read `/proc/self` and the environment; the Apple checks (debugger,
/// inserted libraries, jailbreak signs, modified bundle) are in `Apple/DeviceSecurity+Apple.swift`.
public enum DeviceSecurity {
    /// Library names of instrumentation and hooking toolkits.
    public static let instrumentationLibraries = ["frida", "gum-js", "gadget", "substrate", "libhooker", "xposed", "cycript",
                                                  "libinject", "substitute"]

    /// Findings on this process now; empty when none.
    public static func findings() -> [String] {
        var found: [String] = []
        #if os(Linux)
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8), let tracer = tracerPid(status: status), tracer != 0 {
            found.append("a debugger is attached (TracerPid \(tracer))")
        }
        if let preload = ProcessInfo.processInfo.environment["LD_PRELOAD"], !preload.isEmpty {
            found.append("libraries are preloaded (LD_PRELOAD)")
        }
        if let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) {
            found += instrumentation(maps: maps).map { "an instrumentation library is loaded (\($0))" }
        }
        #elseif canImport(Darwin)
        found = appleFindings()
        #endif
        return found
    }

    /// The `TracerPid` of a `/proc/<pid>/status` text.
    public static func tracerPid(status: String) -> Int? {
        status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") }.flatMap { Int($0.dropFirst(10).trimmingCharacters(in: .whitespaces)) }
    }

    /// Mapped files of a `/proc/<pid>/maps` text whose names match an instrumentation library.
    public static func instrumentation(maps: String) -> [String] {
        var seen: [String] = []
        for line in maps.split(separator: "\n") {
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first.map(String.init) else { continue }
            let name = (path as NSString).lastPathComponent.lowercased()
            if instrumentationLibraries.contains(where: { name.contains($0) }), !seen.contains(path) { seen.append(path) }
        }
        return seen
    }
}

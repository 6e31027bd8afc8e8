import Foundation

/// Wall-clock timings of repeated runs of one stage, in milliseconds.
struct StageTimings: Encodable {
    let stage: String
    let samples: Int
    let medianMs: Double
    let p95Ms: Double

    init(_ stage: String, _ millis: [Double]) {
        let sorted = millis.sorted()
        self.stage = stage
        samples = sorted.count
        medianMs = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        p95Ms = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)]
    }
}

/// Times `body` once, in milliseconds.
func timed<T>(_ millis: inout [Double], _ body: () throws -> T) rethrows -> T {
    let start = DispatchTime.now().uptimeNanoseconds
    let value = try body()
    millis.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    return value
}

/// Resident set size of this process in bytes, from /proc/self/status.
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kb * 1024
}

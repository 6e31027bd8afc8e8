import Foundation
import Synchronization

/// Counters for `/metrics` (Prometheus text format).
final class Metrics: Sendable {
    private let counters = Mutex<[String: Double]>([:])

    /// Adds `value` to the counter `name` (with its labels written in, e.g. `x{status="2xx"}`).
    func add(_ name: String, _ value: Double = 1) {
        counters.withLock { $0[name, default: 0] += value }
    }

    /// Every counter, plus `gauges`, as exposition text.
    func text(gauges: [String: Double]) -> String {
        let all = counters.withLock { $0 }.merging(gauges) { a, _ in a }
        var out = ""
        var typed: Set<String> = []
        for (name, value) in all.sorted(by: { $0.key < $1.key }) {
            let base = String(name.prefix { $0 != "{" })
            if typed.insert(base).inserted { out += "# TYPE \(base) \(gauges[name] == nil ? "counter" : "gauge")\n" }
            out += "\(name) \(value == value.rounded() ? String(Int(value)) : String(value))\n"
        }
        return out
    }
}

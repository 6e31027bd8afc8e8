import Foundation
import Synchronization

/// Counters, histograms and gauges for `/metrics` (Prometheus text format). Every metric is
/// listed in docs/operations.md (a test holds the list to the names the server writes).
final class Metrics: Sendable {
    private let counters = Mutex<[String: Double]>([:])
    private let histograms = Mutex<[String: Histogram]>([:])

    /// Upper bounds of the latency histograms' buckets, in milliseconds.
    static let bucketsMs: [Double] = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000]

    /// Observations counted per bucket, with their sum.
    struct Histogram: Sendable {
        var counts = [Int](repeating: 0, count: Metrics.bucketsMs.count)
        var count = 0
        var sum = 0.0

        mutating func record(_ milliseconds: Double) {
            if let bucket = Metrics.bucketsMs.firstIndex(where: { milliseconds <= $0 }) { counts[bucket] += 1 }
            count += 1
            sum += milliseconds
        }
    }

    /// `pairs` as label text (`a="x",b="y"`), every value escaped as the exposition format
    /// wants (backslash, double quote, line feed), so that no value can end a label or a line.
    static func labels(_ pairs: KeyValuePairs<String, String>) -> String {
        pairs.map { name, value in
            var escaped = ""
            for character in value.unicodeScalars {
                switch character {
                case "\\": escaped += "\\\\"
                case "\"": escaped += "\\\""
                case "\n": escaped += "\\n"
                default: escaped.unicodeScalars.append(character)
                }
            }
            return "\(name)=\"\(escaped)\""
        }.joined(separator: ",")
    }

    /// Adds `value` to the counter `name` (with its labels written in, e.g. `x{status="2xx"}`;
    /// a value not from a fixed set goes through `labels(_:)`).
    func add(_ name: String, _ value: Double = 1) {
        counters.withLock { $0[name, default: 0] += value }
    }

    /// Records `milliseconds` in the histogram `name`, under `labels` (`route="/v1/x"`, or empty).
    func observe(_ name: String, labels: String = "", milliseconds: Double) {
        let key = "\(name)\u{0}\(labels)"
        histograms.withLock { $0[key, default: Histogram()].record(milliseconds) }
    }

    /// Every counter and histogram, plus `gauges`, as exposition text.
    func text(gauges: [String: Double]) -> String {
        let all = counters.withLock { $0 }.merging(gauges) { a, _ in a }
        var out = ""
        var typed: Set<String> = []
        func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
        for (name, value) in all.sorted(by: { $0.key < $1.key }) {
            let base = String(name.prefix { $0 != "{" })
            if typed.insert(base).inserted { out += "# TYPE \(base) \(gauges[name] == nil ? "counter" : "gauge")\n" }
            out += "\(name) \(number(value))\n"
        }
        for (key, histogram) in histograms.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]), labels = parts.count > 1 ? String(parts[1]) : ""
            if typed.insert(name).inserted { out += "# TYPE \(name) histogram\n" }
            let prefix = labels.isEmpty ? "" : labels + ","
            var cumulative = 0
            for (bound, count) in zip(Self.bucketsMs, histogram.counts) {
                cumulative += count
                out += "\(name)_bucket{\(prefix)le=\"\(number(bound))\"} \(cumulative)\n"
            }
            out += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(histogram.count)\n"
            out += "\(name)_sum\(labels.isEmpty ? "" : "{\(labels)}") \(number(histogram.sum))\n"
            out += "\(name)_count\(labels.isEmpty ? "" : "{\(labels)}") \(histogram.count)\n"
        }
        return out
    }
}

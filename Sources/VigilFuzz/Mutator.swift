import VigilCore
/// Deterministic input mutations: input `i` of a run with seed `s` is always the same, so a
/// failure is reproduced with `--seed s --from i --count 1`.
struct Mutator {
    private var random: SplitMix64

    /// The generator for input `index` of the run seeded `seed`.
    init(seed: UInt64, index: Int) {
        random = SplitMix64(state: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        _ = next()
    }

    mutating func next() -> UInt64 { random.next() }

    /// A number in `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }

    /// One of `items`.
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    /// One to four generic byte mutations: bit flips, random bytes, truncation, insertion,
    /// deletion, extreme values where lengths live, and duplicated regions.
    mutating func bytes(_ seed: [UInt8]) -> [UInt8] {
        var bytes = seed
        for _ in 0..<int(1...4) {
            guard !bytes.isEmpty else { return [UInt8(truncatingIfNeeded: next())] }
            let at = int(0...(bytes.count - 1))
            switch int(0...6) {
            case 0: bytes[at] ^= UInt8(1 << int(0...7))
            case 1: bytes[at] = UInt8(truncatingIfNeeded: next())
            case 2: bytes = Array(bytes.prefix(at))
            case 3: bytes.insert(contentsOf: (0..<int(1...64)).map { _ in UInt8(truncatingIfNeeded: next()) }, at: at)
            case 4: bytes.removeSubrange(at..<min(bytes.count, at + int(1...64)))
            case 5: for i in at..<min(bytes.count, at + 4) { bytes[i] = pick([0x00, 0xFF, 0x7F, 0x80]) }
            default:
                let end = min(bytes.count, at + int(1...256))
                bytes.insert(contentsOf: bytes[at..<end], at: end)
            }
        }
        return bytes
    }

    /// JPEG-aware mutations: the segment structure is found and one segment is changed where a
    /// decoder trusts it (frame sizes, Huffman tables, scan headers, restart intervals), or
    /// scans are repeated (the progressive "scan bomb"); otherwise generic bytes.
    mutating func jpeg(_ seed: [UInt8]) -> [UInt8] {
        var segments: [(marker: UInt8, at: Int, length: Int)] = []
        var i = 2
        while i + 4 <= seed.count, seed[i] == 0xFF {
            let marker = seed[i + 1], length = Int(seed[i + 2]) << 8 | Int(seed[i + 3])
            segments.append((marker, i, length))
            if marker == 0xDA { break }
            i += 2 + length
        }
        guard !segments.isEmpty, int(0...3) != 0 else { return bytes(seed) }
        var out = seed
        let segment = pick(segments)
        let body = segment.at + 4
        switch segment.marker {
        case 0xC0...0xC2 where body + 5 < out.count:
            // Precision, height, width, components.
            let field = pick([0, 1, 3, 5])
            let value = pick([0, 1, 0xFF, 0x7F, int(0...255)])
            out[body + field] = UInt8(value)
            if field == 1 || field == 3 { out[body + field + 1] = UInt8(truncatingIfNeeded: next()) }
        case 0xC4 where body + 17 < out.count:
            // Code counts of a Huffman table.
            out[body + 1 + int(0...15)] = UInt8(truncatingIfNeeded: next())
        case 0xDA:
            if int(0...1) == 0, body + 2 < out.count {
                out[body + int(0...2)] = UInt8(truncatingIfNeeded: next())
            } else {
                // The scan header and its data again, many times: a decoder must bound the scans.
                let scan = Array(out[segment.at...].prefix(2048))
                let copies = int(2...400)
                out.insert(contentsOf: (0..<copies).flatMap { _ in scan }, at: segment.at)
            }
        case 0xDD where body + 1 < out.count:
            out[body + int(0...1)] = UInt8(truncatingIfNeeded: next())
        default:
            // The segment's own length.
            out[segment.at + 2] = UInt8(truncatingIfNeeded: next())
            out[segment.at + 3] = UInt8(truncatingIfNeeded: next())
        }
        return out
    }

    /// JSON-aware mutations of a JSON object: a value of another type, an extreme number, a long
    /// or odd string, an unknown or missing field, deep nesting; otherwise generic bytes.
    mutating func json(_ seed: [UInt8]) -> [UInt8] {
        guard int(0...3) != 0, var object = (try? JSONSerializationBridge.object(seed)) else { return bytes(seed) }
        let odd: [Any] = [NSNullBridge.null, true, -1, 0, 1e308, -9_223_372_036_854_775_808, 18_446_744_073_709_551_615.0, "", String(repeating: "a", count: int(1...70_000)),
                          "\u{0}\u{FFFF}\u{1F600}", [Any](), [String: Any](), JSONSerializationBridge.nested(depth: int(1...600))]
        let keys = Array(object.keys)
        switch int(0...3) {
        case 0 where !keys.isEmpty: object[pick(keys)] = pick(odd)
        case 1 where !keys.isEmpty: object.removeValue(forKey: pick(keys))
        case 2: object[pick(["x", "__proto__", "policy", "riskLevel", String(repeating: "k", count: 300)])] = pick(odd)
        default:
            if let key = keys.first, var inner = object[key] as? [String: Any], let innerKey = inner.keys.first {
                inner[innerKey] = pick(odd)
                object[key] = inner
            } else if let key = keys.first {
                object[key] = pick(odd)
            }
        }
        return JSONSerializationBridge.data(object) ?? bytes(seed)
    }
}

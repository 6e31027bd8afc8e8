/// Image bytes built to cost a decoder far more than their size: attacks the server must refuse.
public enum HostileImages {
    /// A "scan bomb" made from a baseline JPEG: marked progressive, with `scans` scans, all but
    /// the first empty. Each scan costs a decoder a pass over the image (200,000 took 44 s).
    public static func scanBomb(from baseline: [UInt8], scans: Int) -> [UInt8] {
        var data = baseline
        guard let sof = data.indices.dropLast().first(where: { data[$0] == 0xFF && data[$0 + 1] == 0xC0 }) else { return data }
        data[sof + 1] = 0xC2
        let emptyScan: [UInt8] = [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x01, 0x3F, 0x00]
        data.insert(contentsOf: Array([[UInt8]](repeating: emptyScan, count: max(scans - 1, 0)).joined()), at: data.count - 2)
        return data
    }
}

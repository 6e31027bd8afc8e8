import CTesseract
import Foundation

/// Reads one line of a machine-readable zone with Tesseract 5 (Debian's `libtesseract`) and an
/// OCR-B model trained for zones (`mrz.traineddata` of DoubangoTelecom/tesseractMRZ, BSD-3-Clause,
/// placed by `scripts/setup`), giving each character with its confidence. Measured on the real
/// specimens' lines it read 77 of 84 exactly, where the `eng` model read 18 (docs/document.md).
///
/// Owns its `TessBaseAPI` from `init` to `deinit`.
// @unchecked: the Tesseract handle is only used with `lock` held (one instance is not reentrant).
public final class MRZLineRecognizer: @unchecked Sendable {
    /// One character read, Tesseract's confidence in it (0-100), and the columns of the line's
    /// image its box spans.
    public struct Character: Sendable, Equatable {
        public let value: Swift.Character
        public let confidence: Double
        public let columns: Range<Int>
    }

    /// Why the recogniser cannot be used.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The model's file name in `tessdata` under the models directory.
    public static let modelFile = "tessdata/mrz.traineddata"
    /// The least difference between a line's darkest and lightest grey that can be print.
    static let minimumContrast = 40
    /// What a zone may hold.
    static let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"

    private let lock = NSLock()
    private let api: OpaquePointer

    /// Loads the model from `modelsDirectory` (`$VIGIL_MODELS`, or `~/.cache/vigil/models`).
    public init(modelsDirectory: URL) throws(Unavailable) {
        let model = modelsDirectory.appendingPathComponent(Self.modelFile)
        guard FileManager.default.isReadableFile(atPath: model.path) else {
            throw Unavailable(description: "no zone model at \(model.path) (scripts/setup places it)")
        }
        guard let api = TessBaseAPICreate() else { throw Unavailable(description: "Tesseract did not start") }
        guard TessBaseAPIInit3(api, model.deletingLastPathComponent().path, "mrz") == 0 else {
            TessBaseAPIDelete(api)
            throw Unavailable(description: "Tesseract could not load \(model.path)")
        }
        TessBaseAPISetPageSegMode(api, PSM_SINGLE_LINE)
        _ = TessBaseAPISetVariable(api, "tessedit_char_whitelist", Self.alphabet)
        // Tesseract's own log lines (resolution guesses) would go to stderr on every read.
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        self.api = api
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// Makes the calling thread run Tesseract's OpenMP sections on itself alone. Debian's
    /// Tesseract asks for 4 threads in its LSTM, which wait by spinning: reading the real
    /// specimens took 2.6 times the processor time (23 s against 9, on 2 cores) and took cores
    /// from live captures. OpenMP's own limit (`OMP_THREAD_LIMIT`) is read only when the library
    /// loads; with no active parallel level allowed, each section runs on the thread that calls.
    /// libgomp is loaded with Tesseract, so the function is looked up rather than linked.
    static func oneThread() {
        guard let limit = maximumActiveLevels else { return }
        limit(0)
    }

    private static let maximumActiveLevels: (@convention(c) (Int32) -> Void)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "omp_set_max_active_levels") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Void).self)
    }()

    /// The characters of the one line of text on `line` (8-bit grey, dark on light), left to
    /// right; empty when Tesseract sees none.
    public func read(_ line: PageImage) -> [Character] {
        // Tesseract reads letters with high confidence on a blank image (its binarisation makes
        // the whole of it ink): a line without contrast holds nothing.
        guard line.width > 0, line.height > 0, let darkest = line.pixels.min(), let lightest = line.pixels.max(),
              Int(lightest) - Int(darkest) >= Self.minimumContrast else { return [] }
        lock.lock()
        defer { lock.unlock() }
        Self.oneThread()
        line.pixels.withUnsafeBufferPointer { TessBaseAPISetImage(api, $0.baseAddress, Int32(line.width), Int32(line.height), 1, Int32(line.width)) }
        TessBaseAPISetSourceResolution(api, 300)
        defer { TessBaseAPIClear(api) }
        guard TessBaseAPIRecognize(api, nil) == 0, let iterator = TessBaseAPIGetIterator(api) else { return [] }
        defer { TessResultIteratorDelete(iterator) }
        var out: [Character] = []
        repeat {
            guard let text = TessResultIteratorGetUTF8Text(iterator, RIL_SYMBOL) else { continue }
            let symbol = String(cString: text)
            TessDeleteText(text)
            let confidence = Double(TessResultIteratorConfidence(iterator, RIL_SYMBOL))
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            _ = TessPageIteratorBoundingBox(TessResultIteratorGetPageIteratorConst(iterator), RIL_SYMBOL, &left, &top, &right, &bottom)
            out += symbol.map { Character(value: $0, confidence: confidence, columns: Int(left)..<Int(max(left, right))) }
        } while TessResultIteratorNext(iterator, RIL_SYMBOL) != 0
        return out
    }
}

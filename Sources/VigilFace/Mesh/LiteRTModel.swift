import CLiteRT
import Foundation

/// A TensorFlow Lite model compiled for the CPU by LiteRT's runtime (`CLiteRT`), float32 in and out.
///
/// Ownership: the object owns its `vl_litert_model` and closes it in `deinit`. Not Sendable: a
/// compiled model and its tensor buffers serve one call at a time, so each analyzer holds its own.
final class LiteRTModel {
    private let model: OpaquePointer
    /// Floats of the one input.
    let inputCount: Int
    /// The input's dimensions (batch, height, width, channels for an image model).
    let inputShape: [Int]
    /// Floats of each output, in the model's signature order.
    let outputCounts: [Int]
    /// The dimensions of each output, in the same order.
    let outputShapes: [[Int]]

    /// Compiles the .tflite at `model` with the runtime library at `library`.
    init(library: URL, model url: URL, threads: Int = 1) throws(ModelError) {
        var message = [CChar](repeating: 0, count: 512)
        guard let opened = vl_litert_model_open(library.path, url.path, Int32(threads), &message, message.count) else {
            throw .invalidFile(name: url.lastPathComponent, reason: Self.text(message))
        }
        guard vl_litert_model_input_count(opened) == 1 else {
            vl_litert_model_close(opened)
            throw .invalidFile(name: url.lastPathComponent, reason: "expected one input")
        }
        self.model = opened
        inputCount = vl_litert_model_input_size(opened, 0)
        func shape(_ read: (OpaquePointer, Int, UnsafeMutablePointer<Int32>) -> Int32, _ index: Int) -> [Int] {
            var dimensions = [Int32](repeating: 0, count: 8)
            let rank = Int(read(opened, index, &dimensions))
            return dimensions.prefix(rank).map(Int.init)
        }
        inputShape = shape(vl_litert_model_input_shape, 0)
        let outputs = 0..<vl_litert_model_output_count(opened)
        outputCounts = outputs.map { vl_litert_model_output_size(opened, $0) }
        outputShapes = outputs.map { shape(vl_litert_model_output_shape, $0) }
    }

    /// Compiles `modelFile` in `directory` with the runtime that set-up places there
    /// (`FaceMesh.runtimeFile`); a missing file is named in the error.
    convenience init(modelFile: String, in directory: URL) throws(ModelError) {
        for name in [modelFile, FaceMesh.runtimeFile]
        where !FileManager.default.isReadableFile(atPath: directory.appendingPathComponent(name).path) {
            throw .missingFile(name: name, directory: directory.path)
        }
        try self.init(library: directory.appendingPathComponent(FaceMesh.runtimeFile), model: directory.appendingPathComponent(modelFile))
    }

    deinit { vl_litert_model_close(model) }

    /// Runs the model on `input` (`inputCount` floats); one array per output.
    func run(_ input: [Float]) throws(ModelError) -> [[Float]] {
        precondition(input.count == inputCount, "input of \(input.count) floats for a model that takes \(inputCount)")
        // All outputs in one allocation, each at its offset.
        var flat = [Float](repeating: 0, count: outputCounts.reduce(0, +))
        var message = [CChar](repeating: 0, count: 256)
        let status = input.withUnsafeBufferPointer { inputBuffer in
            flat.withUnsafeMutableBufferPointer { outputBuffer -> Int32 in
                var inputPointers: [UnsafePointer<Float>?] = [inputBuffer.baseAddress]
                var offset = 0
                var outputPointers: [UnsafeMutablePointer<Float>?] = outputCounts.map { count in
                    defer { offset += count }
                    return outputBuffer.baseAddress.map { $0 + offset }
                }
                return vl_litert_model_run(model, &inputPointers, &outputPointers, &message, message.count)
            }
        }
        guard status == 0 else { throw .runFailed(Self.text(message)) }
        var offset = 0
        return outputCounts.map { count in
            defer { offset += count }
            return Array(flat[offset..<offset + count])
        }
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

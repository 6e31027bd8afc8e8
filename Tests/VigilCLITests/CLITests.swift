import Foundation
import Testing
import VigilTestSupport

/// Runs the built `vigil` executable as a user would and checks exit codes and JSON.
@Suite struct CLITests {
    struct Run {
        let status: Int32
        let stdout: Data
        let stderr: String
        var json: Any? { try? JSONSerialization.jsonObject(with: stdout) }
        var errorCode: String? {
            let line = stderr.split(separator: "\n").last.map(String.init) ?? ""
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [String: String]]
            return object?["error"]?["code"]
        }
    }

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["VIGIL_BINARY"] { return URL(fileURLWithPath: path) }
        // The test bundle sits beside the products in the build directory.
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vigil")
    }

    /// The `swift` driver on `PATH`, for tests that run SwiftPM themselves.
    static func swift() throws -> URL {
        try #require(ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("swift") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) })
    }

    static var fixtures: String {
        ProcessInfo.processInfo.environment["VIGIL_FIXTURES"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/vigil/fixtures").path
    }

    /// Runs `executable` (`vigil` unless given) with `arguments`, `input` as its standard input.
    static func run(_ arguments: [String], environment: [String: String] = [:], executable: URL? = nil, input: Data? = nil) throws -> Run {
        let process = Process()
        process.executableURL = executable ?? binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(input)
            try pipe.fileHandleForWriting.close()
        } else {
            try process.run()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func temporaryFile(_ bytes: Data, suffix: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-cli-\(UUID())\(suffix)")
        try bytes.write(to: url)
        return url.path
    }

    @Test func analyzePrintsFacesWithLandmarksPoseAndQuality() throws {
        let result = try Self.run(["analyze", "\(Self.fixtures)/obama.jpg"])
        #expect(result.status == 0)
        let images = try #require(result.json as? [[String: Any]])
        let image = try #require(images.first)
        #expect(image["width"] as? Int == 910 && image["height"] as? Int == 1137)
        let face = try #require((image["faces"] as? [[String: Any]])?.first)
        #expect((face["landmarks"] as? [[Double]])?.count == 68)
        for key in ["box", "score", "pose", "eyes", "mouth", "quality"] { #expect(face[key] != nil, "missing \(key)") }
        let box = try #require(face["box"] as? [String: Double])
        #expect(Set(box.keys) == ["x", "y", "width", "height"])
        #expect(Set((face["quality"] as? [String: Double])?.keys ?? [:].keys) == ["sharpness", "brightness", "contrast"])
    }

    @Test func analyzeExitsTwoWhenAnyFileIsNotAnImage() throws {
        let junk = try Self.temporaryFile(Data("definitely not a jpeg".utf8), suffix: ".jpg")
        defer { try? FileManager.default.removeItem(atPath: junk) }
        let result = try Self.run(["analyze", "\(Self.fixtures)/obama.jpg", junk, "/nonexistent/x.png"])
        #expect(result.status == 2)
        #expect(result.errorCode == "bad_image")
        let images = try #require(result.json as? [[String: Any]])
        #expect(images.count == 3)
        #expect(images[0]["faces"] != nil && images[1]["error"] != nil && images[2]["error"] != nil)
    }

    @Test func compareMatchesTheSamePerson() throws {
        let result = try Self.run(["compare", "\(Self.fixtures)/obama.jpg", "\(Self.fixtures)/obama2.jpg"])
        #expect(result.status == 0)
        let report = try #require(result.json as? [String: Any])
        #expect(report["matched"] as? Bool == true)
        #expect((report["distance"] as? Double ?? 1) < 0.6)
        #expect(report["threshold"] as? Double == 0.6)
        #expect(report["facesInA"] as? Int == 1)
    }

    @Test func compareExitsOneForDifferentPeople() throws {
        let result = try Self.run(["compare", "\(Self.fixtures)/obama.jpg", "\(Self.fixtures)/biden.jpg"])
        #expect(result.status == 1)
        #expect((result.json as? [String: Any])?["matched"] as? Bool == false)
    }

    @Test func compareReportsAnImageWithoutAFace() throws {
        // The CLI test links no Vigil module, so the flat grey PNG is built here from the format.
        let png = try Self.temporaryFile(Self.flatPNG(width: 64, height: 64), suffix: ".png")
        defer { try? FileManager.default.removeItem(atPath: png) }
        let result = try Self.run(["compare", png, "\(Self.fixtures)/obama.jpg"])
        #expect(result.status == 2)
        #expect(result.errorCode == "no_face")
    }

    @Test func compareRefusesBadImagesAndBadOptions() throws {
        let junk = try Self.temporaryFile(Data([0xFF, 0xD8, 0xFF]), suffix: ".jpg")
        defer { try? FileManager.default.removeItem(atPath: junk) }
        #expect(try Self.run(["compare", junk, "\(Self.fixtures)/obama.jpg"]).errorCode == "bad_image")
        let badThreshold = try Self.run(["compare", "a", "b", "--threshold", "lots"])
        #expect(badThreshold.status == 2 && badThreshold.errorCode == "usage")
        #expect(try Self.run(["compare", "only-one"]).status == 2)
    }

    @Test func missingModelsAreAClearErrorNamingSetup() throws {
        let result = try Self.run(["analyze", "\(Self.fixtures)/obama.jpg"], environment: ["VIGIL_MODELS": "/nonexistent"])
        #expect(result.status == 2)
        #expect(result.errorCode == "models_missing")
        #expect(result.stderr.contains("scripts/setup"))
    }

    @Test func unknownCommandsAndNoArgumentsExitTwo() throws {
        #expect(try Self.run(["frobnicate"]).status == 2)
        #expect(try Self.run([]).status == 2)
        #expect(try Self.run(["analyze", "--bogus"]).errorCode == "usage")
    }

    /// A valid PNG of one grey level with stored (uncompressed) deflate blocks, built from the spec.
    static func flatPNG(width: Int, height: Int) -> Data {
        let raw = (0..<height).flatMap { _ in [UInt8(0)] + [UInt8](repeating: 128, count: width) }
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let length = UInt16(raw.count)
        let zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            + raw + ImageBytes.bigEndian32(b << 16 | a)
        let header = ImageBytes.bigEndian32(UInt32(width)) + ImageBytes.bigEndian32(UInt32(height)) + [8, 0, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ImageBytes.pngChunk("IHDR", header) + ImageBytes.pngChunk("IDAT", zlib) + ImageBytes.pngChunk("IEND", []))
    }

    /// A short pass of `scripts/fuzz` (300 inputs a parser): no hang, no 5xx, no forgery, every parser ran.
    @Test func aShortFuzzPassFindsNoHangOrServerError() throws {
        let fuzz = Self.binary.deletingLastPathComponent().appendingPathComponent("vigil-fuzz")
        // Bounded by its count, not by time: a 60-second cap left the document reader 22 inputs
        // short on a machine half as fast (CI, 2026-12-07), which said nothing about the parsers.
        let run = try Self.run(["--fixtures", Self.fixtures, "--count", "300"], executable: fuzz)
        #expect(run.status == 0, "\(run.stderr)")
        let reports = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(Set(reports.compactMap { $0["target"] as? String })
                == ["image", "document", "jws", "webhook-signature", "bridge-envelope", "json-body", "http-request"])
        for report in reports {
            #expect(report["inputs"] as? Int == 300 && report["hangs"] as? Int == 0 && report["serverErrors"] as? Int == 0
                    && report["forgeries"] as? Int == 0, "\(report)")
        }
    }
}

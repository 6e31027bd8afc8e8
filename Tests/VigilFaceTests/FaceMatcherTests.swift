import Foundation
import Testing
import VigilCore
@testable import VigilFace

@Suite struct FaceMatcherTests {
    static func descriptor(_ image: Image, _ analyzer: FaceAnalyzer) throws -> FaceDescriptor {
        let face = try #require(analyzer.detect(in: image).first)
        return try analyzer.descriptor(for: face, in: image)
    }

    @Test func samePersonStaysBelowThresholdUnderCropScaleAndRecompression() throws {
        let analyzer = try Fixtures.analyzer(.photos)
        let photo = try Fixtures.image("obama.jpg")
        let reference = try Self.descriptor(photo, analyzer)
        let box = try #require(analyzer.detect(in: photo).first).box
        let variants: [String: Image] = [
            "crop": try #require(photo.cropped(to: box.scaled(by: 2.2))),
            "half scale": photo.resized(width: 455, height: 568),
            "jpeg q30": try Image(encoded: photo.jpegData(quality: 30)),
            "other photo": try Fixtures.image("obama2.jpg"),
        ]
        let matcher = FaceMatcher()
        for (name, variant) in variants {
            let match = matcher.compare(reference, try Self.descriptor(variant, analyzer))
            #expect(match.matched, "\(name): \(match.distance)")
            if name != "other photo" { #expect(match.distance < 0.2, "\(name): \(match.distance)") }
        }
    }

    @Test func differentPeopleStayAboveThreshold() throws {
        let analyzer = try Fixtures.analyzer(.photos)
        let people = try ["obama.jpg", "biden.jpg", "grace_hopper.jpg"].map { try Self.descriptor(Fixtures.image($0), analyzer) }
        let matcher = FaceMatcher()
        for i in 0..<people.count {
            for j in (i + 1)..<people.count {
                let match = matcher.compare(people[i], people[j])
                #expect(!match.matched && match.distance > 0.65, "\(i) vs \(j): \(match.distance)")
                #expect(match.similarity < 0.5)
            }
        }
    }

    @Test func descriptorBytesRoundTripExactlyAndBadBytesAreRefused() {
        let descriptor = FaceDescriptor((0..<128).map { Float($0) * 0.013 - 0.7 })
        #expect(descriptor.bytes.count == 512)
        #expect(FaceDescriptor(bytes: descriptor.bytes) == descriptor)
        #expect(FaceDescriptor(bytes: Array(descriptor.bytes.dropLast())) == nil)
        var nan = descriptor.bytes
        withUnsafeBytes(of: Float.nan.bitPattern.littleEndian) { nan.replaceSubrange(0..<4, with: $0) }
        #expect(FaceDescriptor(bytes: nan) == nil)
    }

    @Test func similarityIsOneHalfAtTheThresholdAndFallsWithDistance() {
        let zero = FaceDescriptor([Float](repeating: 0, count: 128))
        func at(_ distance: Float) -> FaceDescriptor { FaceDescriptor([distance] + [Float](repeating: 0, count: 127)) }
        let matcher = FaceMatcher(threshold: 0.5)
        #expect(abs(matcher.compare(zero, at(0.5)).similarity - 0.5) < 1e-9)
        #expect(matcher.compare(zero, at(0.5)).matched)
        #expect(!matcher.compare(zero, at(0.51)).matched)
        let scores = [0.0, 0.3, 0.6, 0.9].map { matcher.compare(zero, at(Float($0))).similarity }
        #expect(scores == scores.sorted(by: >))
        #expect(scores.allSatisfy { (0...1).contains($0) })
    }

    @Test func missingModelsNameTheFileAndTheSetupCommand() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-no-models-\(UUID())")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        do {
            _ = try FaceModels(directory: empty, landmarks: .mesh)
            Issue.record("loading from an empty directory succeeded")
        } catch {
            #expect(error.description.contains(FaceModels.encoderFile) && error.description.contains("scripts/setup"), "\(error)")
        }
    }

    @Test func corruptModelFilesAreReportedNotFatal() throws {
        let models = FaceModels.defaultDirectory
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-bad-models-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: models.appendingPathComponent(FaceModels.canonicalFaceFile),
                                         to: dir.appendingPathComponent(FaceModels.canonicalFaceFile))
        try Data("not a model".utf8).write(to: dir.appendingPathComponent(FaceModels.encoderFile))
        #expect(throws: ModelError.self) { try FaceModels(directory: dir, landmarks: .mesh) }
        // The encoder in place, the mesh model not one: the analyzer that would open it says so.
        try FileManager.default.removeItem(at: dir.appendingPathComponent(FaceModels.encoderFile))
        try FileManager.default.copyItem(at: models.appendingPathComponent(FaceModels.encoderFile), to: dir.appendingPathComponent(FaceModels.encoderFile))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("litert"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: models.appendingPathComponent(FaceMesh.runtimeFile), to: dir.appendingPathComponent(FaceMesh.runtimeFile))
        try Data("not a model".utf8).write(to: dir.appendingPathComponent(FaceMesh.modelFile))
        let loaded = try FaceModels(directory: dir, landmarks: .mesh)
        #expect(throws: ModelError.self) { try FaceAnalyzer(models: loaded) }
    }

    @Test func poolGivesTheSameAnswersConcurrentlyAsSerially() async throws {
        // Four analyzers on sixteen images of different sizes, twice over: with Debian's
        // single-threaded OpenBLAS called unguarded, about 1 in 400 answers came out different.
        let pool = try AnalyzerPool(models: Fixtures.models.get(), size: 4, options: .photos)
        func scaled(_ photo: Image, _ s: Double) -> Image {
            photo.remapped(width: Int(Double(photo.width) * s), height: Int(Double(photo.height) * s)) { x, y in
                Point2D(x: Double(x) / s, y: Double(y) / s)
            }
        }
        let photos = try ["obama.jpg", "obama2.jpg", "biden.jpg", "grace_hopper.jpg"].map(Fixtures.image)
        let images: [Image] = photos.flatMap { photo in [1.0, 0.5, 0.8, 1.3].map { scaled(photo, $0) } }
        struct Answer: Equatable, Sendable { let landmarks: [Point2D]?, descriptor: [Float]? }
        @Sendable func answer(_ analyzer: any FaceAnalyzing, _ image: Image) -> Answer {
            let face = analyzer.detect(in: image).first
            return Answer(landmarks: face?.landmarks, descriptor: face.flatMap { try? analyzer.descriptor(for: $0, in: image).values })
        }
        let serial = images.map { image in pool.withAnalyzer { answer($0, image) } }
        let concurrent = await withTaskGroup(of: (Int, Answer).self) { group in
            for (i, image) in (images + images).enumerated() {
                group.addTask { (i % images.count, pool.withAnalyzer { answer($0, image) }) }
            }
            var out: [[Answer]] = Array(repeating: [], count: images.count)
            for await (i, found) in group { out[i].append(found) }
            return out
        }
        #expect(serial.allSatisfy { $0.descriptor != nil })
        for (i, answers) in concurrent.enumerated() { #expect(answers == [serial[i], serial[i]], "image \(i)") }
    }

    @Test func loadedBLASAcceptsCallsFromSeveralThreads() {
        // scripts/setup installs the threaded OpenBLAS; the single-threaded one would serialise analysis.
        #expect(BLASRuntime.isThreadSafe)
    }
}

import Foundation
import VigilFace

/// The photos synthetic subjects are made from, each composed a few ways (mirrored, nearer or
/// farther, off-centre) so that sessions differ in more than the seed.
public struct SubjectLibrary: Sendable {
    /// One composed subject and who it is.
    public struct Subject: Sendable {
        /// The person (photos of one person share it).
        public let person: String
        /// Where it came from, for reports.
        public let name: String
        /// The posable head.
        public let rig: FaceRig
    }

    /// All subjects.
    public let subjects: [Subject]

    /// Subjects from every JPEG/PNG in `directory` showing exactly one face; the person is the
    /// file name up to its first digit, '-' or '_' ("obama2.jpg" and "obama.jpg" are one person).
    public init(directory: URL, analyzer: FaceAnalyzer) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
        var subjects: [Subject] = []
        for file in files {
            guard let photo = try? Image(contentsOf: directory.appendingPathComponent(file)) else { continue }
            let person = String(file.prefix { $0.isLetter })
            for (k, variant) in [(false, 0.45, 0.0), (true, 0.38, 0.04), (false, 0.52, -0.03)].enumerated() {
                guard let rig = try? FaceRig(photo: photo, name: file, analyzer: analyzer, faceHeight: variant.1,
                                             offset: .init(x: variant.2, y: variant.2 / 2), mirrored: variant.0) else { break }
                subjects.append(Subject(person: person, name: "\(file)#\(k)", rig: rig))
            }
        }
        guard !subjects.isEmpty else { throw SynthError.noSingleFace(directory.path) }
        self.subjects = subjects
    }

    /// The `index`-th subject and another person for it (itself when there is only one person).
    public func pick(_ index: Int) -> (subject: Subject, other: Subject) {
        let subject = subjects[index % subjects.count]
        let others = subjects.filter { $0.person != subject.person }
        return (subject, others.isEmpty ? subject : others[(index / subjects.count) % others.count])
    }
}

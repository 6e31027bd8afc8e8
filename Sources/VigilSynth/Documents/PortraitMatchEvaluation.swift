import Foundation
import VigilCore
import VigilDocument
import VigilFace

/// How the document step's face comparison separates people (`vigil synth documents`): each
/// photo of the fixtures printed as the portrait of a 2 MP data page, found there by
/// `DocumentPortrait` as the server finds it, against the live face of each photo as the
/// synthetic person's camera shows it (640x480, resting), with the server's `FaceMatcher`.
public enum PortraitMatchEvaluation {
    /// One document-to-selfie comparison.
    public struct Pair: Sendable {
        /// The photo printed on the document and the one the live person is made from.
        public let document: String, selfie: String
        /// Whether they show one person; `samePhoto` when they are one file.
        public let genuine: Bool, samePhoto: Bool
        /// The descriptor distance, nil when no face was found on the page or in the frame.
        public let distance: Double?
        /// Whether the server would call it a match.
        public var matched: Bool { distance.map { $0 <= FaceMatcher.defaultThreshold } ?? false }
    }

    /// Every pair of `photos` (name, person, image), the document's portrait against the selfie.
    public static func run(photos: [(name: String, person: String, image: Image)], reader: DocumentReader, analyzer: FaceAnalyzer) throws -> [Pair] {
        let fields = MRZComposer.Fields(documentCode: "P", issuingState: "UTO", documentNumber: "X00000000", surname: "SPECIMEN", givenNames: "PORTRAIT",
                                        nationality: "UTO", dateOfBirth: MRZDate(year: 1970, month: 1, day: 1),
                                        expiryDate: MRZDate(year: 2035, month: 1, day: 1), sex: "X", optionalData: "")
        let width = Int((2_000_000 / 0.70).squareRoot())
        var portraits: [String: FaceDescriptor?] = [:], selfies: [String: FaceDescriptor?] = [:]
        for photo in photos {
            let page = try SpecimenDocument(format: .td3, fields: fields).render(width: width, portrait: idPhoto(photo.image, analyzer: analyzer))
            let printed = try page.image()
            let located = reader.read(page, today: MRZDate.today).page
            portraits[photo.name] = located.flatMap { DocumentPortrait.descriptor(in: printed, page: $0, analyzer: analyzer) }
            var person = SyntheticPerson(rig: try FaceRig(photo: photo.image, name: photo.name, analyzer: analyzer), light: .live(strength: 0.15), seed: 1)
            let frame = person.frame(at: 0, screen: ScreenState()).image()
            selfies[photo.name] = try? PhotoFace(in: frame, analyzer: analyzer).descriptor
        }
        var pairs: [Pair] = []
        for document in photos {
            for selfie in photos {
                let distance = portraits[document.name]!.flatMap { a in selfies[selfie.name]!.map { a.distance(to: $0) } }
                pairs.append(Pair(document: document.name, selfie: selfie.name, genuine: document.person == selfie.person,
                                  samePhoto: document.name == selfie.name, distance: distance))
            }
        }
        return pairs
    }

    /// The photo cropped as an identity document's portrait is: the head and shoulders, the face
    /// about half the photo's height (ICAO 9303 part 3 asks for the head to fill 70-80% of it,
    /// chin to crown); the photo itself when it has no face.
    static func idPhoto(_ photo: Image, analyzer: some FaceAnalyzing) -> Image {
        guard let face = analyzer.detect(in: photo, minFaceFraction: 0.05).first else { return photo }
        let box = face.box, height = box.height * 2, width = height * 0.78
        let crop = Rect(x: max(0, box.x + box.width / 2 - width / 2), y: max(0, box.y + box.height / 2 - height * 0.45),
                        width: width, height: height)
        return photo.cropped(to: crop) ?? photo
    }
}

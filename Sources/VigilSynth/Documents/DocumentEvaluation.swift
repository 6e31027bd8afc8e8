import Foundation
import VigilCore
import VigilDocument
import VigilFace

/// How well documents are read (`vigil synth documents`, `scripts/eval-documents`): generated
/// specimen pages of fictitious people in TD1, TD2 and TD3, under each camera condition, read
/// by the same `DocumentReader` the server runs, each reading compared with the zone printed.
public enum DocumentEvaluation {
    /// What is done to a page before it is read.
    public struct Condition: Sendable {
        public let name: String
        /// Page size in megapixels.
        public let megapixels: Double
        public var rotation = 0.0, blur = 0, noise = 0.0
        /// The grey of a table the page lies on (the photo a fifth wider and taller than the page), nil for none.
        public var table: UInt8?
        /// Degrees the page is turned away from the camera about its vertical axis (`sideways`)
        /// or its horizontal one, as a phone held at an angle sees it.
        public var perspective = 0.0, sideways = true
        /// A bright reflection (the lamp on a laminated page) somewhere on the page.
        public var glare = false
        /// JPEG quality of the photo, nil for none.
        public var jpegQuality: Int?
    }

    /// Clean pages at three sizes, then each disturbance alone at 2 MP, then all of them at once.
    public static let conditions: [Condition] = [
        Condition(name: "clean 1 MP", megapixels: 1), Condition(name: "clean 2 MP", megapixels: 2), Condition(name: "clean 4 MP", megapixels: 4),
        Condition(name: "turned 4 degrees", megapixels: 2, rotation: 4), Condition(name: "turned -3 degrees", megapixels: 2, rotation: -3),
        Condition(name: "blurred", megapixels: 2, blur: 1), Condition(name: "noisy", megapixels: 2, noise: 12),
        Condition(name: "JPEG 60", megapixels: 2, jpegQuality: 60),
        Condition(name: "on a dark table", megapixels: 2, table: 60),
        Condition(name: "perspective 15 degrees sideways", megapixels: 2, table: 90, perspective: 15),
        Condition(name: "perspective 25 degrees sideways", megapixels: 2, table: 90, perspective: 25),
        Condition(name: "perspective 25 degrees forward", megapixels: 2, table: 90, perspective: 25, sideways: false),
        Condition(name: "glare", megapixels: 2, glare: true),
        Condition(name: "turned, blurred, noisy, JPEG 70", megapixels: 2, rotation: 2.5, blur: 1, noise: 8, jpegQuality: 70),
    ]

    /// One condition's figures.
    public struct Row: Sendable {
        public let condition: String
        public let documents: Int
        /// Read with every character as printed.
        public let exact: Int
        /// No zone read.
        public let unreadable: Int
        /// Read differently from what was printed, yet every check holding: the readings that must never happen.
        public let wrongButValid: Int
        /// Time to read a page (find, straighten, read, parse), ms, one thread.
        public let medianMs: Double, p95Ms: Double
    }

    /// `count` documents a condition (the three formats in turn), people from `seed`, portraits
    /// from `portraits`.
    /// `misread` hears each reading that differs from the zone printed yet passes every check;
    /// `keep` gets every photo read, for reading it with another reader.
    public static func run(count: Int, seed: UInt64, portraits: [Image], reader: DocumentReader, today: MRZDate,
                           misread: (_ printed: [String], _ read: [String]) -> Void = { _, _ in },
                           keep: ((_ condition: Condition, _ index: Int, _ photo: PageImage, _ zone: [String]) throws -> Void)? = nil,
                           progress: (Row) -> Void = { _ in }) throws -> [Row] {
        var random = SynthRandom(seed: seed)
        let documents = (0..<count).map { i in
            SpecimenDocument(format: MRZFormat.allCases[i % 3], fields: person(&random, today: today))
        }
        var rows: [Row] = []
        for condition in conditions {
            var exact = 0, unreadable = 0, wrong = 0, times: [Double] = []
            for (i, document) in documents.enumerated() {
                let aspect = document.format == .td1 ? 0.63 : 0.70
                let width = Int((condition.megapixels * 1_000_000 / aspect).squareRoot())
                var page = try document.render(width: width, portrait: portraits[i % max(1, portraits.count)])
                page = try disturb(page, condition, random: &random)
                try keep?(condition, i, page, document.zone)
                let started = ContinuousClock.now
                let reading = reader.read(page, today: today)
                times.append((ContinuousClock.now - started) / .milliseconds(1))
                switch reading {
                case .unreadable: unreadable += 1
                case .read(let mrz, _):
                    if mrz.lines == document.zone {
                        exact += 1
                    } else if mrz.checks.all {
                        wrong += 1
                        misread(document.zone, mrz.lines)
                    }
                }
            }
            times.sort()
            let row = Row(condition: condition.name, documents: documents.count, exact: exact, unreadable: unreadable, wrongButValid: wrong,
                          medianMs: times.isEmpty ? 0 : times[times.count / 2], p95Ms: times.isEmpty ? 0 : times[min(times.count - 1, times.count * 95 / 100)])
            progress(row)
            rows.append(row)
        }
        return rows
    }

    static func disturb(_ page: PageImage, _ condition: Condition, random: inout SynthRandom) throws -> PageImage {
        var out = condition.rotation == 0 ? page : Deskew.rotated(page, by: condition.rotation)
        if condition.glare { out = glared(out, random: &random) }
        if condition.perspective != 0 {
            out = photographed(out, degrees: condition.perspective, sideways: condition.sideways, table: condition.table ?? 90)
        } else if let table = condition.table {
            var photo = PageImage(width: out.width * 6 / 5, height: out.height * 6 / 5, value: table)
            photo.paste(out, x: out.width / 10, y: out.height / 10)
            out = photo
        }
        if condition.blur > 0 { out = boxBlur(out, radius: condition.blur) }
        if condition.noise > 0 {
            for i in out.pixels.indices { out.pixels[i] = UInt8(max(0, min(255, Double(out.pixels[i]) + random.gaussian(condition.noise)))) }
        }
        if let quality = condition.jpegQuality {
            let decoded = try Image(encoded: try out.image().jpegData(quality: quality),
                                    maxPixels: out.width * out.height)
            out = PageImage(rgb: decoded.rgb, width: decoded.width, height: decoded.height)
        }
        return out
    }

    /// The page as a camera with a field of view of about 53 degrees sees it, turned by `degrees`
    /// about its vertical axis (`sideways`, its right edge further away) or its horizontal one
    /// (its top further away), filling 85% of the photo's width at its middle, on a `table`.
    public static func photographed(_ page: PageImage, degrees: Double, sideways: Bool, table: UInt8) -> PageImage {
        let w = Double(page.width), h = Double(page.height), focal = w, distance = w / 0.85
        let turn = degrees * Double.pi / 180
        func seen(_ x: Double, _ y: Double) -> Point2D {
            let (px, py, pz) = sideways ? (x * cos(turn), y, x * sin(turn)) : (x, y * cos(turn), -y * sin(turn))
            return Point2D(x: w / 2 + focal * px / (distance + pz), y: h / 2 + focal * py / (distance + pz))
        }
        let corners = [seen(-w / 2, -h / 2), seen(w / 2, -h / 2), seen(w / 2, h / 2), seen(-w / 2, h / 2)]
        guard let toPage = Homography(from: corners, to: [Point2D(x: 0, y: 0), Point2D(x: w, y: 0), Point2D(x: w, y: h), Point2D(x: 0, y: h)]) else {
            return page
        }
        return page.warped(width: page.width, height: page.height, source: toPage, outside: table)
    }

    /// A reflection: a disc of a tenth of the page's width, white at its core and fading out,
    /// at a random place.
    static func glared(_ page: PageImage, random: inout SynthRandom) -> PageImage {
        var out = page
        let radius = Double(page.width) / 20
        let cx = Double(random.next() % UInt64(page.width)), cy = Double(random.next() % UInt64(page.height))
        let x0 = max(0, Int(cx - 2 * radius)), x1 = min(page.width, Int(cx + 2 * radius))
        let y0 = max(0, Int(cy - 2 * radius)), y1 = min(page.height, Int(cy + 2 * radius))
        for y in y0..<y1 {
            for x in x0..<x1 {
                let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot() / radius
                let light = d < 1 ? 1 : max(0, 2 - d)   // saturated inside, fading to nothing at twice the radius
                out[x, y] = UInt8(Double(out[x, y]) + (255 - Double(out[x, y])) * light)
            }
        }
        return out
    }

    /// A box blur of `radius`, rows then columns.
    public static func boxBlur(_ image: PageImage, radius: Int) -> PageImage {
        var horizontal = image, out = image
        let w = image.width, h = image.height, span = 2 * radius + 1
        for y in 0..<h {
            for x in 0..<w {
                var sum = 0
                for d in -radius...radius { sum += Int(image.pixels[y * w + min(w - 1, max(0, x + d))]) }
                horizontal.pixels[y * w + x] = UInt8(sum / span)
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                var sum = 0
                for d in -radius...radius { sum += Int(horizontal.pixels[min(h - 1, max(0, y + d)) * w + x]) }
                out.pixels[y * w + x] = UInt8(sum / span)
            }
        }
        return out
    }

    /// A fictitious person of Utopia (ICAO's specimen state) with a valid document.
    static func person(_ random: inout SynthRandom, today: MRZDate) -> MRZComposer.Fields {
        let surnames = ["ERIKSSON", "MORENO", "NAKAMURA", "OKAFOR", "SILVA", "KOWALSKA", "DUBOIS", "NGUYEN", "HASSAN", "MUELLER", "ROSSI", "TANAKA"]
        let given = ["ANNA", "MARIA", "JOAO", "WEI", "AMARA", "LUCAS", "SOFIA", "OMAR", "ELENA", "KENJI", "CHIARA", "DAVID"]
        func pick(_ list: [String]) -> String { list[Int(random.next() % UInt64(list.count))] }
        let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let number = String((0..<9).map { _ in characters[Int(random.next() % 36)] })
        let birth = MRZDate(year: 1940 + Int(random.next() % 65), month: 1 + Int(random.next() % 12), day: 1 + Int(random.next() % 28))
        let expiry = MRZDate(year: today.year + 1 + Int(random.next() % 9), month: 1 + Int(random.next() % 12), day: 1 + Int(random.next() % 28))
        return MRZComposer.Fields(documentCode: random.next() % 2 == 0 ? "P" : "I", issuingState: "UTO", documentNumber: number,
                                  surname: pick(surnames), givenNames: pick(given) + (random.next() % 2 == 0 ? " " + pick(given) : ""),
                                  nationality: "UTO", dateOfBirth: birth, expiryDate: expiry, sex: ["M", "F", "X"][Int(random.next() % 3)],
                                  optionalData: random.next() % 3 == 0 ? "" : String((0..<6).map { _ in characters[Int(random.next() % 36)] }))
    }
}

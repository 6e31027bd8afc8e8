import Foundation
import VigilCore
import VigilDocument
import VigilFace

/// How well documents are read (`vigil synth documents`, `scripts/eval-documents`): generated
/// specimen pages of fictitious people in TD1, TD2 and TD3, under each camera condition, read
/// by the same `DocumentReader` the server runs, each reading compared with the zone printed.
public enum DocumentEvaluation {
    /// The formats drawn, in turn: the identity documents' (no visa).
    static let formats: [MRZFormat] = [.td1, .td2, .td3]

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
        /// A reflection (the lamp on a laminated page).
        public var glare: Glare?
        /// JPEG quality of the photo, nil for none.
        public var jpegQuality: Int?
        /// Pixels the camera moved across during the exposure.
        public var movement = 0
        /// The light falls off across the page to this fraction at the far corner (1: even).
        public var light = 1.0
        /// The page's width as a fraction of the photo's, on a grey table (1: the page is the photo).
        public var pageShare = 1.0
        /// What a person should be told when the photo does not read, for conditions in which a
        /// photo is expected not to read; nil where it is expected to read.
        public var expected: DocumentGuidance?
    }

    /// Where a reflection lies and how bright it is.
    public enum Glare: Sendable {
        /// Saturated, anywhere on the page but the zone.
        case besideZone
        /// Over the zone: its print washed out to a third of its contrast, still there to read.
        case faintOverZone
        /// Saturated, over the zone: characters gone.
        case overZone
    }

    /// Clean pages at four sizes, then each disturbance alone at 2 MP, then all of them at
    /// once; last, photos that should not read, each with the guidance a person should get.
    public static let conditions: [Condition] = [
        Condition(name: "clean 1 MP", megapixels: 1), Condition(name: "clean 2 MP", megapixels: 2), Condition(name: "clean 4 MP", megapixels: 4),
        Condition(name: "clean 8 MP", megapixels: 8),
        Condition(name: "turned 4 degrees", megapixels: 2, rotation: 4), Condition(name: "turned -3 degrees", megapixels: 2, rotation: -3),
        Condition(name: "blurred", megapixels: 2, blur: 1), Condition(name: "noisy", megapixels: 2, noise: 12),
        Condition(name: "JPEG 60", megapixels: 2, jpegQuality: 60),
        Condition(name: "on a dark table", megapixels: 2, table: 60),
        Condition(name: "uneven light", megapixels: 2, light: 0.4),
        Condition(name: "perspective 15 degrees sideways", megapixels: 2, table: 90, perspective: 15),
        Condition(name: "perspective 25 degrees sideways", megapixels: 2, table: 90, perspective: 25),
        Condition(name: "perspective 30 degrees sideways", megapixels: 2, table: 90, perspective: 30),
        Condition(name: "perspective 25 degrees forward", megapixels: 2, table: 90, perspective: 25, sideways: false),
        Condition(name: "glare beside the zone", megapixels: 2, glare: .besideZone),
        Condition(name: "faint glare over the zone", megapixels: 2, glare: .faintOverZone),
        Condition(name: "turned, blurred, noisy, JPEG 70", megapixels: 2, rotation: 2.5, blur: 1, noise: 8, jpegQuality: 70),
        // Scans of the page alone, as the real specimens' small ones: capitals of about 13 and
        // 9 pixels.
        Condition(name: "far (page 30% of the photo)", megapixels: 2, table: 90, pageShare: 0.3),
        Condition(name: "scan of 0.4 MP, JPEG 75", megapixels: 0.4, jpegQuality: 75),
        Condition(name: "scan of 0.2 MP, JPEG 75", megapixels: 0.2, jpegQuality: 75),
        Condition(name: "glare over the zone", megapixels: 2, glare: .overZone, expected: .glare),
        Condition(name: "too far (page 15% of the photo)", megapixels: 2, table: 90, pageShare: 0.15, expected: .tooFar),
        Condition(name: "out of focus", megapixels: 2, blur: 5, expected: .blurry),
        Condition(name: "moving", megapixels: 2, movement: 24, expected: .holdStill),
    ]

    /// One condition's figures.
    public struct Row: Sendable {
        public let condition: String
        public let documents: Int
        /// Read with every character as printed.
        public let exact: Int
        /// No zone read.
        public let unreadable: Int
        /// The guidance given for the photos not read, and how often.
        public let guidance: [DocumentGuidance: Int]
        /// Not read, with the guidance the condition expects.
        public let expectedGuidance: Int
        /// Read differently from what was printed, yet every check holding: the readings that must never happen.
        public let wrongButValid: Int
        /// Processor time to read a page (find, straighten, read, parse) on its one thread, ms:
        /// what a core spends on it, however busy the machine's other cores are.
        public let medianMs: Double, p95Ms: Double
        /// Pages read whose corners are known (on a table), and of those, pages whose four edges
        /// were seen with every corner within 1% of the page's width of its place.
        public var pagesOnATable = 0, pagesLocated = 0
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
            SpecimenDocument(format: formats[i % 3], fields: person(&random, today: today))
        }
        var rows: [Row] = []
        for condition in conditions {
            var exact = 0, unreadable = 0, wrong = 0, times: [Double] = [], guidance: [DocumentGuidance: Int] = [:], onATable = 0, located = 0
            for (i, document) in documents.enumerated() {
                let width = Int((condition.megapixels * condition.pageShare * condition.pageShare * 1_000_000 / document.aspect).squareRoot())
                var page = try document.render(width: width, portrait: portraits[i % max(1, portraits.count)])
                let corners = photographedCorners(page, condition)
                page = try disturb(page, condition, zone: try document.zoneRows(width: width), random: &random)
                try keep?(condition, i, page, document.zone)
                let started = ProcessorClock.threadMs()
                let reading = reader.read(page, today: today)
                times.append(ProcessorClock.threadMs() - started)
                switch reading {
                case .unreadable(let advice, _, _):
                    unreadable += 1
                    guidance[advice, default: 0] += 1
                case .read(let mrz, _, _, let found):
                    if let corners {
                        onATable += 1
                        if let found, found.edgesSeen == 4, zip(found.corners, corners).allSatisfy({ $0.distance(to: $1) <= 0.01 * Double(width) }) {
                            located += 1
                        }
                    }
                    if mrz.lines == document.zone {
                        exact += 1
                    } else if mrz.checks.all {
                        wrong += 1
                        misread(document.zone, mrz.lines)
                    }
                }
            }
            times.sort()
            var row = Row(condition: condition.name, documents: documents.count, exact: exact, unreadable: unreadable, guidance: guidance,
                          expectedGuidance: condition.expected.map { guidance[$0] ?? 0 } ?? 0, wrongButValid: wrong,
                          medianMs: times.isEmpty ? 0 : times[times.count / 2], p95Ms: times.isEmpty ? 0 : times[min(times.count - 1, times.count * 95 / 100)])
            (row.pagesOnATable, row.pagesLocated) = (onATable, located)
            progress(row)
            rows.append(row)
        }
        return rows
    }

    /// The signs of a copy, for one way of presenting documents.
    public struct SignsRow: Sendable {
        public let presentation: DocumentPresentation
        public let documents: Int
        /// Read with every character as printed.
        public let exact: Int
        /// With a zone found (read or not), said to be on a screen, or a photocopy.
        public let screen: Int, photocopy: Int
        /// The range of the measures over the documents with a zone found.
        public let screenPattern: ClosedRange<Double>?, colourfulness: ClosedRange<Double>?
    }

    /// `count` documents in colour (the three formats in turn), each photographed as itself, as
    /// a greyscale photocopy and on a screen (`DocumentPresentation`), as a JPEG of quality 85 at
    /// 2 MP, read with `reader` and measured by `DocumentSigns`. `keep` gets each JPEG as read,
    /// byte for byte, with what the evaluation made of it (nil signs: no zone found) and the zone
    /// printed. (The conditions of `run` are drawn and read in grey, as the reader reads; these
    /// are the evaluation's only colour photos.)
    public static func signs(count: Int, seed: UInt64, portraits: [Image], reader: DocumentReader, today: MRZDate,
                             keep: ((_ presentation: DocumentPresentation, _ index: Int, _ jpeg: [UInt8], _ reading: DocumentReader.Reading,
                                     _ signs: DocumentResult.Signs?, _ zone: [String]) throws -> Void)? = nil) throws -> [SignsRow] {
        var random = SynthRandom(seed: seed)
        let documents = (0..<count).map { i in SpecimenDocument(format: formats[i % 3], fields: person(&random, today: today)) }
        return try DocumentPresentation.allCases.map { presentation in
            var exact = 0, screen = 0, photocopy = 0, patterns: [Double] = [], colours: [Double] = []
            for (i, document) in documents.enumerated() {
                let width = Int((2_000_000 / document.aspect).squareRoot())
                let page = try document.colourRender(width: width, portrait: portraits[i % max(1, portraits.count)])
                let jpeg = try presentation.photo(of: page, random: &random).jpegData(quality: 85)
                let photo = try Image(encoded: jpeg, maxPixels: page.width * page.height)
                let reading = reader.read(PageImage(rgb: photo.rgb, width: photo.width, height: photo.height), today: today)
                if case .read(let mrz, _, _, _) = reading, mrz.lines == document.zone { exact += 1 }
                guard let zone = reading.zone else {
                    try keep?(presentation, i, jpeg, reading, nil, document.zone)
                    continue
                }
                let signs = DocumentSigns.measure(photo, zone: zone)
                try keep?(presentation, i, jpeg, reading, signs, document.zone)
                if signs.screen { screen += 1 }
                if signs.photocopy { photocopy += 1 }
                patterns.append(signs.screenPattern)
                colours.append(signs.colourfulness)
            }
            return SignsRow(presentation: presentation, documents: documents.count, exact: exact, screen: screen, photocopy: photocopy,
                            screenPattern: patterns.min().map { $0...patterns.max()! }, colourfulness: colours.min().map { $0...colours.max()! })
        }
    }

    /// Where `disturb` puts the corners of `page` under `condition`, when the page lies on a
    /// table whole (its edges on the photo); nil otherwise.
    static func photographedCorners(_ page: PageImage, _ condition: Condition) -> [Point2D]? {
        guard condition.table != nil, condition.rotation == 0 else { return nil }
        if condition.perspective != 0 {
            let corners = photographedCorners(width: page.width, height: page.height, degrees: condition.perspective, sideways: condition.sideways)
            let inside = corners.allSatisfy { $0.x >= 0 && $0.y >= 0 && $0.x < Double(page.width) && $0.y < Double(page.height) }
            return inside ? corners : nil
        }
        let photo = tableSize(page, condition)
        let x = Double((photo.width - page.width) / 2), y = Double((photo.height - page.height) / 2)
        let w = Double(page.width), h = Double(page.height)
        return [Point2D(x: x, y: y), Point2D(x: x + w, y: y), Point2D(x: x + w, y: y + h), Point2D(x: x, y: y + h)]
    }

    /// The size of the photo `page` lies in the middle of, on a table: a fifth wider and taller,
    /// or the page `pageShare` of its width.
    static func tableSize(_ page: PageImage, _ condition: Condition) -> (width: Int, height: Int) {
        let share = condition.pageShare < 1 ? condition.pageShare : 5.0 / 6
        return (Int(Double(page.width) / share), Int(Double(page.height) / share))
    }

    /// The photo of `page` (whose zone is printed on the rows `zone`) under `condition`.
    public static func disturb(_ page: PageImage, _ condition: Condition, zone: Range<Int>, random: inout SynthRandom) throws -> PageImage {
        var out = condition.light < 1 ? lit(page, falloff: condition.light) : page
        if let glare = condition.glare { out = glared(out, glare, zone: zone, random: &random) }
        if condition.rotation != 0 { out = Deskew.rotated(out, by: condition.rotation) }
        if condition.perspective != 0 {
            out = photographed(out, degrees: condition.perspective, sideways: condition.sideways, table: condition.table ?? 90)
        } else if let table = condition.table {
            let size = tableSize(out, condition)
            var photo = PageImage(width: size.width, height: size.height, value: table)
            photo.paste(out, x: (photo.width - out.width) / 2, y: (photo.height - out.height) / 2)
            out = photo
        }
        if condition.blur > 0 { out = boxBlur(out, radius: condition.blur) }
        if condition.movement > 0 { out = smeared(out, length: condition.movement) }
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

    /// The page lit unevenly: full light at its top-left corner falling off linearly to
    /// `falloff` of it at the bottom-right one (a lamp to one side).
    static func lit(_ page: PageImage, falloff: Double) -> PageImage {
        var out = page
        let span = Double(page.width + page.height)
        for y in 0..<page.height {
            for x in 0..<page.width {
                out[x, y] = UInt8(Double(page[x, y]) * (1 - (1 - falloff) * Double(x + y) / span))
            }
        }
        return out
    }

    /// The photo smeared along its rows over `length` pixels: the camera moved sideways during
    /// the exposure.
    static func smeared(_ image: PageImage, length: Int) -> PageImage {
        var out = image
        for y in 0..<image.height {
            var sum = 0
            for x in 0..<image.width {
                sum += Int(image[x, y])
                if x >= length { sum -= Int(image[x - length, y]) }
                out[x, y] = UInt8(sum / min(x + 1, length))
            }
        }
        return out
    }

    /// The page as a camera with a field of view of about 53 degrees sees it, turned by `degrees`
    /// about its vertical axis (`sideways`, its right edge further away) or its horizontal one
    /// (its top further away), filling 85% of the photo's width at its middle, on a `table`.
    public static func photographed(_ page: PageImage, degrees: Double, sideways: Bool, table: UInt8) -> PageImage {
        let w = Double(page.width), h = Double(page.height)
        let corners = photographedCorners(width: page.width, height: page.height, degrees: degrees, sideways: sideways)
        guard let toPage = Homography(from: corners, to: [Point2D(x: 0, y: 0), Point2D(x: w, y: 0), Point2D(x: w, y: h), Point2D(x: 0, y: h)]) else {
            return page
        }
        return page.warped(width: page.width, height: page.height, source: toPage, outside: table)
    }

    /// Where `photographed` puts the corners of a `width` x `height` page (top left, top right,
    /// bottom right, bottom left).
    public static func photographedCorners(width: Int, height: Int, degrees: Double, sideways: Bool) -> [Point2D] {
        let w = Double(width), h = Double(height), focal = w, distance = w / 0.85
        let turn = degrees * Double.pi / 180
        func seen(_ x: Double, _ y: Double) -> Point2D {
            let (px, py, pz) = sideways ? (x * cos(turn), y, x * sin(turn)) : (x, y * cos(turn), -y * sin(turn))
            return Point2D(x: w / 2 + focal * px / (distance + pz), y: h / 2 + focal * py / (distance + pz))
        }
        return [seen(-w / 2, -h / 2), seen(w / 2, -h / 2), seen(w / 2, h / 2), seen(-w / 2, h / 2)]
    }

    /// A reflection: a disc of a tenth of the page's width, white at its core and fading out,
    /// centred on a random place of the zone's rows (`zone`) or off them.
    static func glared(_ page: PageImage, _ glare: Glare, zone: Range<Int>, random: inout SynthRandom) -> PageImage {
        var out = page
        let radius = Double(page.width) / 20
        let cx = Double(random.next() % UInt64(page.width))
        let cy: Double
        if glare == .besideZone {
            // Anywhere whose halo (twice the radius) stays off the zone's rows.
            let free = max(1, zone.lowerBound - Int(2 * radius))
            cy = Double(random.next() % UInt64(free))
        } else {
            cy = Double(zone.lowerBound + Int(random.next() % UInt64(max(1, zone.count))))
        }
        // Saturated inside, fading to nothing at twice the radius; a faint one leaves a third of
        // the print's contrast at its core.
        let strength = glare == .faintOverZone ? 0.67 : 1
        let x0 = max(0, Int(cx - 2 * radius)), x1 = min(page.width, Int(cx + 2 * radius))
        let y0 = max(0, Int(cy - 2 * radius)), y1 = min(page.height, Int(cy + 2 * radius))
        for y in y0..<y1 {
            for x in x0..<x1 {
                let d = ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot() / radius
                let light = strength * (d < 1 ? 1 : max(0, 2 - d))
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
    public static func person(_ random: inout SynthRandom, today: MRZDate) -> MRZComposer.Fields {
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

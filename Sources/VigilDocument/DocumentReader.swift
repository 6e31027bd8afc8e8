import Foundation
import VigilCore
import VigilFace

/// Reads an identity document from a photo or scan of it, upright, turned by a few degrees or
/// seen at an angle: finds the machine-readable zone, reads its characters and parses them.
/// (The portrait is `DocumentPortrait`'s.)
public struct DocumentReader: Sendable {
    /// What a photo gave.
    public enum Reading: Sendable, Equatable {
        /// A zone, parsed, with the smallest margin of any of its characters (the template
        /// matcher's; 0 for a zone Tesseract read, `MRZLineRecognizer`), where the zone lies
        /// on the photo (its corners: top left, top right, bottom right, bottom left) and where
        /// the page lies, when the zone's text makes a quadrilateral.
        case read(MRZ, leastMargin: Double, zone: [Point2D], page: DocumentPage?)
        /// No zone could be read: what would help, why, for a person, and where the zone lies
        /// when one was found.
        case unreadable(DocumentGuidance, reason: String, zone: [Point2D]?)

        /// Where the zone lies on the photo, when one was found.
        public var zone: [Point2D]? {
            switch self {
            case .read(_, _, let zone, _): zone
            case .unreadable(_, _, let zone): zone
            }
        }

        /// Whether a zone was read.
        public var isRead: Bool {
            if case .read = self { true } else { false }
        }

        /// Where the page lies on the photo, when a zone was read and the page located.
        public var page: DocumentPage? {
            if case .read(_, _, _, let page) = self { page } else { nil }
        }

        /// The same reading with every place on the photo stretched by `x` across and `y` down.
        func scaled(x: Double, y: Double) -> Reading {
            mapped { Point2D(x: $0.x * x, y: $0.y * y) }
        }

        /// The same reading with every place on the photo moved by `move`.
        func mapped(_ move: (Point2D) -> Point2D) -> Reading {
            switch self {
            case let .read(mrz, margin, zone, page):
                return .read(mrz, leastMargin: margin, zone: zone.map(move),
                             page: page.map { DocumentPage(corners: $0.corners.map(move), edgesSeen: $0.edgesSeen) })
            case let .unreadable(guidance, reason, zone):
                return .unreadable(guidance, reason: reason, zone: zone?.map(move))
            }
        }
    }

    private let reader: MRZTextReader
    private let recognizer: MRZLineRecognizer?

    /// The reason given when no zone is found on the photo at all.
    public static let noZone = "no machine-readable zone found"

    /// The least correlation with its template a character may have. In the evaluation of
    /// 2026-12-04 (420 readings) no reading read exactly had a character below 0.56, and a
    /// reflection over the zone left white cells at 0.
    static let minimumCharacterScore = 0.45
    /// The least lead a letter must have over a letter with less ink. In the evaluation of
    /// 2026-12-04 (seed 2, 90 a condition) the letters misread as other letters that passed every
    /// check (`O` as `Q`, on pages seen at 15 degrees) led by 0.024 to 0.057; in readings read
    /// exactly (seed 1) `O` led `Q` by as little as 0.001, and `X` led `Y` by 0.040.
    static let minimumLetterMargin = 0.06

    /// A zone whose second line is this many times taller at one end than the other is read
    /// straightened only. Reading it as found as well read the same pages of the evaluation of
    /// 2026-12-04 (15 and 25 degrees sideways) in 1.25 times the time (365 against 298 ms p50).
    static let straightenedOnly = 1.15

    /// The most pixels a photo of a document may have (8 MP, with room).
    public static let maxPixels = 8_400_000
    /// The most pixels the reader works on: what the capture page sends (about 2 MP). A larger
    /// photo is shrunk to it first, so that every stage's memory and time are bounded by this
    /// size whatever the photo's (docs/document.md, "Bounds").
    public static let workingPixels = 2_100_000

    /// The size the templates are drawn at: capitals of about 30 pixels.
    public static let templateSize = 40

    /// A reader with OCR-B templates from `font`.
    public init(font: OCRBFont, recognizer: MRZLineRecognizer? = nil) {
        reader = MRZTextReader(font: font)
        self.recognizer = recognizer
    }

    /// A reader with templates from Debian's `fonts-ocr-b` at `templateSize`.
    public init() throws(OCRBFont.Unavailable) {
        self.init(font: try OCRBFont(pixelHeight: Self.templateSize), recognizer: try? MRZLineRecognizer(modelsDirectory: FaceModels.defaultDirectory))
    }

    /// What `image` reads; a photo over `workingPixels` is read shrunk to it, and where the zone
    /// and page lie is given on `image` all the same.
    public func read(_ image: PageImage, today: MRZDate) -> Reading {
        let working = image.shrunk(toAtMost: Self.workingPixels)
        guard working.width != image.width || working.height != image.height else { return readWorking(image, today: today) }
        return readWorking(working, today: today).scaled(x: Double(image.width) / Double(working.width), y: Double(image.height) / Double(working.height))
    }

    private func readWorking(_ image: PageImage, today: MRZDate) -> Reading {
        // The background goes first (a dark table beside the page would be ink in every row),
        // then a page turned by a few degrees is straightened (`Deskew`).
        let flat = BackgroundRemoval.flattened(image, side: BackgroundRemoval.side(forWidth: image.width))
        let budget = Budget()
        let usual = readFlattened(flat, image: image, tilts: Self.usualTilt, budget: budget, today: today)
        if let reading = usual.reading, usual.certain || reading.isRead { return reading }
        // No zone, or only lines found by their characters that did not read (any two lines of
        // text with a few chevrons): the page may be turned further, or lie on its side (turned
        // within 15 degrees of it). Each is tried only then; the first reading is the photo's,
        // else the first zone found.
        var found = usual.reading
        // A photo without lines of print either way (a wall, noise, a gradient) is not searched
        // again: each search costs a straightening and its reads.
        guard usual.printed else {
            return found ?? .unreadable(ZoneDiagnosis.guidance(withoutZone: usual.upright), reason: Self.noZone, zone: nil)
        }
        let further = readFlattened(flat, image: image, tilts: Self.furthestTilt, beyond: Self.usualTilt, budget: budget, today: today)
        if let reading = further.reading, reading.isRead || further.certain { return reading }
        found = found ?? further.reading
        for quarter in [1, 3] {
            let turned = readFlattened(flat.quarterTurned(quarter), image: image.quarterTurned(quarter), tilts: Self.usualTilt, budget: budget, today: today)
            guard let reading = turned.reading?.mapped({ PageImage.sourceOfQuarterTurned($0, quarter, width: image.width, height: image.height) }) else { continue }
            if reading.isRead { return reading }
            found = found ?? reading
        }
        return found ?? .unreadable(ZoneDiagnosis.guidance(withoutZone: usual.upright), reason: Self.noZone, zone: nil)
    }

    /// The tilt most photos have, searched first (degrees either way).
    static let usualTilt = 15.0
    /// The most tilt searched for, when no zone was found within `usualTilt` (the 30).
    static let furthestTilt = 30.0

    /// What `flat` (`image` with its background removed) reads, straightened within `tilts`
    /// degrees (and beyond `beyond`; nil when no zone is found on it); whether the zone is
    /// certainly one (found by `MRZLocator`'s long lines, not only by `CharacterLines`); whether
    /// it shows lines of print either way (`CharacterLines.hasLines`; true where the long lines
    /// were found); and `flat` straightened.
    private func readFlattened(_ flat: PageImage, image: PageImage, tilts: Double, beyond: Double = 0, budget: Budget, today: MRZDate)
        -> (reading: Reading?, certain: Bool, printed: Bool, upright: PageImage) {
        var tilt = Deskew.angle(of: flat, limit: tilts, beyond: beyond)
        var upright = abs(tilt) >= 0.3 ? Deskew.rotated(flat, by: -tilt) : flat
        func read(_ frame: Rect) -> Reading {
            self.read(MRZLocator.crop(upright, frame), frame: frame, turnedBack: abs(tilt) >= 0.3 ? -tilt : 0, image: image, budget: budget, today: today)
        }
        // Lines that span most of the photo first (fast).
        let long = MRZLocator.frames(in: upright)
        // Lines of other text can look like a zone's (a visa's or a card's printed fields): each
        // candidate is read, bottom first, and only two that read differently are two documents.
        var readings = budget.take(long.prefix(Self.mostCandidates)).map(read)
        var printed = true
        // Else zones found by their characters anywhere, whatever share of the photo they span
        // and whatever shares their rows (a label, a hand, the other page). Framing the long
        // rows' zones by their characters as well read no more real specimens, and cut zones
        // short where a reflection broke their chains (faint glare, 27 of 30 pages read, fell
        // to 12).
        if !readings.contains(where: \.isRead) {
            let threshold = MRZTextReader.otsu(upright), pieces = CharacterLines.pieces(upright, threshold: threshold)
            printed = CharacterLines.hasLines(pieces)
            var zones = CharacterLines.zones(CharacterLines.lines(in: upright, pieces: pieces, threshold: threshold))
            // The page's text sets the tilt, and a page seen at an angle tilts its zone by a
            // few degrees more: straightened once more by the zone's own lines.
            if let zone = zones.first, abs(atan(zone.slope)) * 180 / .pi >= 0.3 {
                tilt += atan(zone.slope) * 180 / .pi
                upright = Deskew.rotated(flat, by: -tilt)
                zones = CharacterLines.zones(CharacterLines.lines(in: upright))
            }
            readings += budget.take(zones.prefix(Self.mostCandidates)).map { read($0.frame) }
        }
        guard let first = readings.first else { return (nil, false, printed, upright) }
        // A zone found both ways is one zone: the centre of one reading's zone within the other's.
        var parsed: [Reading] = []
        for reading in readings where reading.isRead {
            if !parsed.contains(where: { Self.overlap($0.zone ?? [], reading.zone ?? []) }) { parsed.append(reading) }
        }
        guard parsed.count <= 1 else {
            return (.unreadable(.oneDocument, reason: "more than one machine-readable zone: photograph one document at a time", zone: nil), true, printed, upright)
        }
        return (parsed.first ?? first, !long.isEmpty, printed, upright)
    }

    /// Whether the centre of quadrilateral `a` lies within the bounding box of `b`.
    static func overlap(_ a: [Point2D], _ b: [Point2D]) -> Bool {
        guard !a.isEmpty, !b.isEmpty else { return false }
        let x = a.reduce(0) { $0 + $1.x } / Double(a.count), y = a.reduce(0) { $0 + $1.y } / Double(a.count)
        return x >= b.map(\.x).min()! && x <= b.map(\.x).max()! && y >= b.map(\.y).min()! && y <= b.map(\.y).max()!
    }

    /// The widest line image Tesseract reads, in capitals' heights (with the white either side).
    static let widestLine = 64
    /// The narrowest: a line of 30 characters spans 26 capitals' heights, 28 with the white (28.1
    /// to 34 on the real specimens' cards). Lines of a page's other print, shorter, were a third
    /// of the lines Tesseract read on the real specimens, and none read.
    static let narrowestLine = 26

    /// What one photo's reading may still spend, whatever the photo: zones read (templates, and
    /// the diagnosis) and lines Tesseract reads (30 to 50 ms each). A page of ruled marks showed
    /// zone-like lines everywhere, on every side: read without a bound it took 7 s.
    // One per `read(_:today:)` call, used on its thread only: not Sendable.
    final class Budget {
        private(set) var zones = 8, lines = 12

        /// As many of `candidates` as the budget still allows, counted as spent.
        func take<C: Collection>(_ candidates: C) -> [C.Element] {
            let taken = Array(candidates.prefix(zones))
            zones -= taken.count
            return taken
        }

        /// Whether `count` more lines may be read, counted as spent when they may.
        func takeLines(_ count: Int) -> Bool {
            guard lines >= count else { return false }
            lines -= count
            return true
        }
    }

    /// The most candidate zones read on one photo: each costs a reading.
    static let mostCandidates = 4

    /// What the candidate `zone`, found at `frame` on the upright page, reads.
    private func read(_ zone: PageImage, frame: Rect, turnedBack turn: Double, image: PageImage, budget: Budget, today: MRZDate) -> Reading {
        // Where the zone lies on the photo: the frame found on the upright page, turned back.
        let corners = [(frame.x, frame.y), (frame.x + frame.width, frame.y), (frame.x + frame.width, frame.y + frame.height), (frame.x, frame.y + frame.height)]
            .map { Deskew.source(of: Point2D(x: $0.0, y: $0.1), turnedBy: turn, width: image.width, height: image.height) }
        let lines = ZoneDiagnosis.Lines(zone)
        // Where the templates do not read, Tesseract may (`recognized`).
        let recognizedAlone = { [self] in
            self.recognized(zone, lines, templates: { try? reader.read(zone) }, budget: budget, today: today).map { Reading.read($0, leastMargin: 0, zone: corners, page: nil) }
        }
        // Capitals smaller than the character matcher reads are not read, and no blur is judged
        // on them: an edge of a pixel or two is as sharp as such small print gets, and read as
        // blurred it told people with a sharp photo to refocus.
        if lines.height > 0, lines.height < ZoneDiagnosis.minimumCharacterHeight {
            return recognizedAlone() ?? .unreadable(.tooFar, reason: "the machine-readable zone's characters are too small to read", zone: corners)
        }
        // A zone blurred beyond 0.12 of its characters' height is not read by the templates: out
        // of focus, they read characters as others in ways the check digits missed
        // (`ZoneDiagnosis`). Tesseract, checked as below, read 19 of 30 such pages of the
        // evaluation of 2026-12-07 (seed 3) right and none wrong.
        if let smeared = ZoneDiagnosis.tooSmeared(zone, lines) {
            return recognizedAlone() ?? .unreadable(smeared, reason: "the machine-readable zone is too blurred to read", zone: corners)
        }
        // A zone seen at an angle is read straightened (`ZoneRectifier`); one nearly level is
        // read both as found and straightened, and the reading whose characters match their
        // templates best is kept.
        let outline = ZoneRectifier.outline(zone, lines)
        let text = Self.textCorners(outline, lines, zone: zone, frame: frame, turnedBack: turn, width: image.width, height: image.height)
        let straightened = outline.flatMap { ZoneRectifier.straightened(zone, $0) }
        let steep = (outline?.convergence ?? 1) >= Self.straightenedOnly
        let asFound = steep && straightened != nil ? nil : try? reader.read(zone)
        let candidates = [asFound, straightened.flatMap { try? reader.read($0) }].compactMap { $0 }
        let recognized = { [self] () -> Reading? in
            self.recognized(zone, lines, templates: { asFound ?? (try? reader.read(zone)) }, budget: budget, today: today).map { Reading.read($0, leastMargin: 0, zone: corners, page: DocumentPage.locate(in: image, zone: text, format: $0.format)) }
        }
        let failed = { (reason: String) in recognized() ?? Reading.unreadable(ZoneDiagnosis.guidance(zone, lines, outline: outline), reason: reason, zone: corners) }
        guard let lines = candidates.max(by: { MRZTextReader.meanScore($0) < MRZTextReader.meanScore($1) }) else {
            return failed("the machine-readable zone could not be read")
        }
        // A character that matches no template well was not seen whole (glare, a shadow, a
        // fold): whatever it was read as, the reading is not to be trusted.
        guard (lines.flatMap(\.scores).min() ?? 0) >= Self.minimumCharacterScore else {
            return failed("part of the machine-readable zone could not be read")
        }
        // A letter that nearly matched another letter (a page seen at an angle read `O` as `Q`)
        // is not guessed: in a name nothing would catch it.
        guard !lines.contains(where: { reader.hasDoubtfulLetter($0, margin: Self.minimumLetterMargin) }) else {
            return failed("some letters of the machine-readable zone could not be told apart")
        }
        do {
            let mrz = try MRZ(lines: lines.map(\.text), today: today)
            // A check that fails may be the templates' mistake (`0` read as `O` on a page turned
            // by 22 degrees): Tesseract's reading, where it holds, is the zone's.
            if !(mrz.checks.checkDigits && mrz.checks.dates), let reading = recognized() { return reading }
            return .read(mrz, leastMargin: lines.flatMap(\.margins).min() ?? 0, zone: corners,
                         page: DocumentPage.locate(in: image, zone: text, format: mrz.format))
        } catch {
            return failed("the lines read are not a machine-readable zone")
        }
    }

    /// The least confidence (0-100) Tesseract must give every character of a zone it reads. On
    /// the real specimens, before letters were compared with the templates', 60, 80 and 90 read
    /// the same images but one.
    static let minimumRecognizerConfidence = 80.0
    /// The least confidence Tesseract must give a letter the templates read otherwise. On the
    /// real specimens of 2026-12-07 such letters read right had 96.8 to 99.0 (capitals of 8 to
    /// 14 pixels, where the templates misread `E` as `F` and `I` as `T`), and the one read wrong
    /// (`M` as `R`, which the templates read right) 90.3.
    static let strongRecognizerConfidence = 95.0
    /// How much better another character's template may match the cell where Tesseract read a
    /// character than that character's own. On the real specimens of 2026-12-07, the 382
    /// characters Tesseract read right where the templates' grid read another were matched at
    /// most 0.12 worse than the best; the one it read wrong (`M` as `R`) 0.28 worse.
    static let templateContradiction = 0.2
    /// The fewest fillers the templates must see in a zone before Tesseract reads it: a name
    /// alone is followed by two, and its padding by more.
    static let leastFillers = 4

    /// The zone read line by line by `recognizer`, trusted only whole: every character confident
    /// and of its field's kind, every letter as `templates` (the template matcher's reading of
    /// `zone`, asked for only when the lines' images could be a zone's) read it or read with
    /// strong confidence and not contradicted by the templates where Tesseract saw it, every
    /// check digit and date holding.
    private func recognized(_ zone: PageImage, _ lines: ZoneDiagnosis.Lines, templates: () -> [MRZTextReader.Line]?, budget: Budget, today: MRZDate) -> MRZ? {
        guard let recognizer, lines.bands.count == 2 || lines.bands.count == 3, lines.height > 0 else { return nil }
        // A zone's line holds 30 to 44 characters: on the real specimens its image spans 28 to
        // 44 capitals' heights (56 on a blurred photo, whose capitals measure short). A wider or
        // narrower line is other print, and would cost Tesseract its width.
        let images = lines.bands.map { Self.lineImage(zone, lines, band: $0) }
        guard images.allSatisfy({ (Self.narrowestLine * lines.height...Self.widestLine * lines.height).contains($0.image.width) }) else { return nil }
        // Letters no check digit covers (names, codes) are checked against the templates too.
        // Lines of other text that looked like a zone's show few fillers even to the templates,
        // and are not worth Tesseract's 50 ms a line.
        guard let templates = templates(), templates.count == lines.bands.count,
              templates.map({ $0.text.count { $0 == "<" } }).reduce(0, +) >= Self.leastFillers, budget.takeLines(images.count) else { return nil }
        var read: [[MRZLineRecognizer.Character]] = []
        for image in images {
            let line = recognizer.read(image.image)
            // A zone's lines are of one length, 30, 36 or 44, and its first starts with the
            // document's code, a letter: another line is not read after one that breaks this.
            guard !line.isEmpty, line.allSatisfy({ $0.confidence >= Self.minimumRecognizerConfidence }), [30, 36, 44].contains(line.count),
                  read.first.map({ $0.count == line.count }) ?? line[0].value.isLetter else { return nil }
            read.append(line)
        }
        guard let mrz = try? MRZ(lines: read.map { String($0.map(\.value)) }, today: today), mrz.checks.checkDigits, mrz.checks.dates else { return nil }
        // The templates told the length from the lines' pitch, which small print blurs (44 read
        // as 36): they read again at Tesseract's.
        var grid = templates
        if grid.map(\.text.count) != read.map(\.count), let again = try? reader.read(zone, lineLength: read[0].count), again.count == read.count {
            grid = again
        }
        for (index, line) in read.enumerated() {
            guard grid[index].text.count == line.count else { return nil }
            let pitch = Double(line.last!.columns.upperBound - line[0].columns.lowerBound) / Double(line.count - 1)
            for (position, (kind, (character, template))) in zip(mrz.format.kinds(line: index), zip(line, grid[index].text)).enumerated() {
                // A letter's position holds letters and fillers only, a digit's digits and
                // fillers: capitals of 12 pixels read `UTO` as `UT0` with every check holding.
                if kind == .letter && character.value.isNumber || kind == .digit && character.value.isLetter { return nil }
                // No check digit covers a name, and none tells `Q` from `G` (26 and 16 weigh
                // the same). Where the templates' grid read another character in a field that
                // may hold letters, Tesseract must be sure, and the templates, placed where it
                // saw the character, must not match another much better. (Their grid misreads
                // small print, `E` as `F`, and is lost under glare.)
                if kind != .digit, character.value != template {
                    guard character.confidence >= Self.strongRecognizerConfidence,
                          !contradicted(character, kind: kind, in: zone, lines, line: index, left: images[index].left, pitch: pitch) else { return nil }
                }
            }
        }
        return mrz
    }

    /// Whether the templates of a field of `kind`, placed on `character` where Tesseract saw it
    /// on line `line` of `zone` (whose image for Tesseract starts at `left`), match another character better than its own by more than
    /// `templateContradiction`. The cell is a capital's height tall, anywhere within the band's
    /// rows: a line that curves or slants makes its band taller than its capitals.
    private func contradicted(_ character: MRZLineRecognizer.Character, kind: MRZFormat.Kind, in zone: PageImage, _ lines: ZoneDiagnosis.Lines,
                              line: Int, left: Int, pitch: Double) -> Bool {
        let band = lines.bands[line], pad = max(1, lines.height / 4)
        let centre = Double(left) + Double(character.columns.lowerBound + character.columns.upperBound) / 2
        let scores = reader.scores(zone, centre: centre, pitch: pitch, rows: max(0, band.lowerBound - pad)..<min(zone.height, band.upperBound + pad),
                                   height: lines.height, kind: kind)
        guard let own = MRZTextReader.characters.firstIndex(of: character.value), let best = scores.max() else { return true }
        return scores[own] < best - Self.templateContradiction
    }

    /// The line of `zone` at `band` as Tesseract reads it best, and where the image's left edge
    /// lies on `zone`: its rows with half a capital's height above and below, its characters
    /// with a quarter of a capital's width either side, and white for a capital's height beyond.
    /// The whole width of the zone gave a spurious first character on 4 real specimens, and the
    /// extent of the band's ink takes in a frame drawn round the zone or print beside it, which
    /// the chain of its characters (`CharacterLines`) leaves out.
    static func lineImage(_ zone: PageImage, _ lines: ZoneDiagnosis.Lines, band: Range<Int>) -> (image: PageImage, left: Int) {
        let pad = max(2, lines.height / 2), top = band.lowerBound - pad, bottom = band.upperBound + pad
        let rows = MRZLocator.crop(zone, Rect(x: 0, y: Double(top), width: Double(zone.width), height: Double(bottom - top)))
        let chain = CharacterLines.lines(in: rows).max { $0.pieces.count < $1.pieces.count }
        let columns = chain.map { $0.minX..<($0.maxX + 1) } ?? MRZTextReader.extent(lines.ink, width: zone.width, rows: band)
        let side = max(1, lines.height / 4), left = columns.lowerBound - side
        var image = PageImage(width: columns.count + 2 * side + 2 * lines.height, height: bottom - top)
        image.paste(MRZLocator.crop(rows, Rect(x: Double(left), y: 0, width: Double(columns.count + 2 * side), height: Double(rows.height))), x: lines.height, y: 0)
        return (image, left - lines.height)
    }

    /// Where the zone's text lies on the photo: the first line's capitals to the last line's
    /// baseline, from the first character to the last (the outline's, which follow a page seen
    /// at an angle; else the lines' rows and ink; else the whole zone found) on the upright
    /// page, turned back.
    static func textCorners(_ outline: ZoneRectifier.Outline?, _ lines: ZoneDiagnosis.Lines, zone: PageImage, frame: Rect, turnedBack turn: Double,
                            width: Int, height: Int) -> [Point2D] {
        var corners: [Point2D]
        if let outline {
            corners = [outline.quads[0][0], outline.quads[0][1], outline.quads[outline.quads.count - 1][2], outline.quads[outline.quads.count - 1][3]]
        } else if let first = lines.bands.first, let last = lines.bands.last {
            let extents = lines.bands.map { MRZTextReader.extent(lines.ink, width: zone.width, rows: $0) }
            let left = Double(extents.map(\.lowerBound).min()!), right = Double(extents.map(\.upperBound).max()!)
            let top = Double(first.lowerBound), bottom = Double(last.upperBound)
            corners = [Point2D(x: left, y: top), Point2D(x: right, y: top), Point2D(x: right, y: bottom), Point2D(x: left, y: bottom)]
        } else {
            let w = Double(zone.width), h = Double(zone.height)
            corners = [Point2D(x: 0, y: 0), Point2D(x: w, y: 0), Point2D(x: w, y: h), Point2D(x: 0, y: h)]
        }
        return corners.map { Deskew.source(of: Point2D(x: $0.x + frame.x, y: $0.y + frame.y), turnedBy: turn, width: width, height: height) }
    }
}

extension DocumentResult {
    /// What `reading` says, with expiry judged on `today`.
    public init(_ reading: DocumentReader.Reading, today: MRZDate) {
        switch reading {
        case .unreadable(let guidance, let reason, _):
            self = .unreadable(reason, guidance: guidance)
        case .read(let mrz, _, _, _):
            self.init(checks: Checks(readable: true, checkDigits: mrz.checks.checkDigits, dates: mrz.checks.dates, fields: mrz.checks.fields,
                                     expired: mrz.isExpired(on: today)))
            type = mrz.format.rawValue.uppercased()
            documentCode = mrz.documentCode
            issuingState = mrz.issuingState
            documentNumber = mrz.documentNumber
            surname = mrz.surname
            givenNames = mrz.givenNames
            nationality = mrz.nationality
            dateOfBirth = mrz.dateOfBirth?.description
            expiryDate = mrz.expiryDate?.description
            sex = mrz.sex
            optionalData = mrz.optionalData
        }
    }
}

extension DocumentResult {
    /// What `reading` of `photo` says, with the signs of a copy (`DocumentSigns`) when a zone
    /// was found, read or not.
    public init(_ reading: DocumentReader.Reading, photo: Image, today: MRZDate) {
        self.init(reading, today: today)
        if let zone = reading.zone { signs = DocumentSigns.measure(photo, zone: zone) }
    }
}

extension MRZDate {
    /// Today in UTC.
    public static var today: MRZDate {
        let now = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
        return MRZDate(year: now.year ?? 1970, month: now.month ?? 1, day: now.day ?? 1)
    }
}

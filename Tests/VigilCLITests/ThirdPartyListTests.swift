import Foundation
import Testing

/// THIRD-PARTY.md names every file `scripts/setup` downloads, with the checksum setup pins and
/// the package it comes from: a new download cannot arrive without its terms written down.
struct ThirdPartyListTests {
    static let root = BackendExampleTests.package.deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func everyChecksumSetupPinsIsListedWithItsTerms() throws {
        let setup = try Self.text("scripts/setup"), list = try Self.text("THIRD-PARTY.md")
        let checksums = setup.matches(of: /\b[0-9a-f]{64}\b/).map { String($0.output) }
        #expect(checksums.count >= 11)
        for checksum in Set(checksums) {
            #expect(list.contains(checksum), "scripts/setup pins \(checksum), which THIRD-PARTY.md does not list")
        }
    }

    @Test func everyPackageSetupDownloadsFromIsNamedWithItsVersion() throws {
        let setup = try Self.text("scripts/setup"), list = try Self.text("THIRD-PARTY.md")
        // `fetch_from_pypi "name==version" ...`, directly or through a variable such as MODELS_PKG.
        let specs = setup.matches(of: /"([A-Za-z0-9_.-]+)==([0-9][0-9A-Za-z.]*)"/).map { (String($0.output.1), String($0.output.2)) }
        #expect(!specs.isEmpty)
        for (name, version) in specs {
            #expect(list.contains("`\(name)` \(version)"), "THIRD-PARTY.md does not name \(name) \(version)")
        }
    }

    @Test func setupFetchesNonCommercialFilesOnlyForTheOptInBaseline() throws {
        let setup = try Self.text("scripts/setup"), list = try Self.text("THIRD-PARTY.md")
        let restricted = list.split(separator: "\n").filter { $0.hasPrefix("|") && $0.contains("non-commercial") }
            .flatMap { $0.matches(of: /\b[0-9a-f]{64}\b/).map { String($0.output) } }
        #expect(restricted.count >= 3)
        let optIn = try #require(setup.range(of: #"if [ "${VIGIL_LANDMARKS:-mesh}" = ibug68 ]; then"#))
        let optInEnd = try #require(setup.range(of: "\nfi\n", range: optIn.upperBound..<setup.endIndex))
        let outside = String(setup[..<optIn.lowerBound]) + String(setup[optInEnd.upperBound...])
        for checksum in restricted {
            #expect(!outside.contains(checksum), "scripts/setup fetches \(checksum), a non-commercial file, by default")
        }
    }

    @Test func vigilItselfIsUnderTheApacheLicence() throws {
        #expect(try Self.text("LICENSE").contains("Apache License\n                           Version 2.0, January 2004"))
    }
}

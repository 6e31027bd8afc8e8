import Foundation
import Testing
import VigilCore

/// Which documents a step accepts: identity documents by default, a visa only where named.
@Suite struct DocumentPolicyTests {
    @Test func aVisaIsAcceptedOnlyWhereThePolicyNamesIt() throws {
        let standard = try JSONDecoder().decode(DocumentPolicy.self, from: Data("{}".utf8))
        #expect(standard.types == [.passport, .idCard, .td2])
        #expect(["TD1", "TD2", "TD3"].allSatisfy(standard.accepts(format:)) && !standard.accepts(format: "MRVA") && !standard.accepts(format: "MRVB"))
        let visas = try JSONDecoder().decode(DocumentPolicy.self, from: Data(#"{"types": ["visa"]}"#.utf8))
        #expect(visas.accepts(format: "MRVA") && visas.accepts(format: "MRVB") && !visas.accepts(format: "TD3"))
    }
}

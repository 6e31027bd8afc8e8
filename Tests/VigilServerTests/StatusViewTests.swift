import Foundation
import Testing
import VigilCore
@testable import VigilServer

@Suite struct StatusViewTests {
    @Test func theHandWrittenPollAnswerIsWhatJSONEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let views = [
            DeviceAPI.StatusView(status: .created, outcome: nil, feedback: nil, signedResult: nil, lockedOut: nil, locale: "pt-BR",
                                 redirectUrl: "https://app.example/done?x=1&y=%22", collectLocation: true, motionOnlyAvailable: true,
                                 document: .init(captured: false, required: true, matchFace: true, types: [.passport, .td2])),
            DeviceAPI.StatusView(status: .completed, outcome: "failed", feedback: [.challengeTimeout, .tooDark], signedResult: "eyJh.eyJ9.c2ln-_",
                                 lockedOut: true, locale: nil, redirectUrl: "a\"b\\c\n\u{01}é", collectLocation: nil, motionOnlyAvailable: nil,
                                 document: nil),
            DeviceAPI.StatusView(status: .completed, outcome: "passed", feedback: [], signedResult: "a.b.c", lockedOut: nil, locale: "zh-Hans", redirectUrl: nil, collectLocation: nil,
                                 motionOnlyAvailable: nil, document: .init(captured: true, required: false, matchFace: false, types: [.idCard])),
        ]
        for view in views {
            #expect(String(decoding: view.jsonBytes, as: UTF8.self) == String(decoding: try encoder.encode(view), as: UTF8.self))
        }
    }
}

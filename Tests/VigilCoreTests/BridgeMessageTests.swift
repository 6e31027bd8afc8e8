import Testing
import VigilCore

struct BridgeMessageTests {
    @Test func everyKindThePageSendsIsParsed() throws {
        #expect(try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"ready"}"#) == .ready)
        #expect(try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"event","data":{"type":"challenge.started","index":0,"kind":"blink","at":{"x":1}}}"#)
                == .event(type: "challenge.started", details: ["index": "0", "kind": "blink"]))
        #expect(try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"event","data":{"type":"x","ok":true,"score":0.5}}"#)
                == .event(type: "x", details: ["ok": "true", "score": "0.5"]))
        #expect(try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"complete","data":{"status":"submitted"}}"#) == .complete(.submitted))
        #expect(try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"complete","data":{"status":"abandoned"}}"#) == .complete(.abandoned))
        #expect(try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"cancel","data":{"session_id":"ses_1"}}"#) == .cancel(sessionId: "ses_1"))
        #expect(try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"error","data":{"code":"camera_denied","message":"No"}}"#)
                == .error(code: "camera_denied", message: "No"))
    }

    @Test func messagesFromOtherSourcesAndVersionsAreDropped() {
        #expect(throws: BridgeMessage.Rejection.wrongSource) { try BridgeMessage(envelope: #"{"source":"other","version":1,"kind":"ready"}"#) }
        #expect(throws: BridgeMessage.Rejection.wrongSource) { try BridgeMessage(envelope: #"{"version":1,"kind":"ready"}"#) }
        #expect(throws: BridgeMessage.Rejection.unsupportedVersion) { try BridgeMessage(envelope: #"{"source":"vigil","version":2,"kind":"ready"}"#) }
        #expect(throws: BridgeMessage.Rejection.unsupportedVersion) { try BridgeMessage(envelope: #"{"source":"vigil","version":"1","kind":"ready"}"#) }
        #expect(throws: BridgeMessage.Rejection.unsupportedVersion) { try BridgeMessage(envelope: #"{"source":"vigil","version":true,"kind":"ready"}"#) }
    }

    @Test func malformedJSONUnknownKindsAndMissingDataAreRejected() {
        for text in ["", "not json", "[1,2]", #"{"source":"vigil""#, #""vigil""#, String(repeating: " ", count: 20_000) + "{}"] {
            #expect(throws: BridgeMessage.Rejection.malformed) { try BridgeMessage(envelope: text) }
        }
        #expect(throws: BridgeMessage.Rejection.malformed) { try BridgeMessage(envelope: #"{"source":"vigil","version":1}"#) }
        #expect(throws: BridgeMessage.Rejection.unknownKind("teleport")) { try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"teleport"}"#) }
        // The SDK's wire name is snake_case `session_id`; camelCase is not it.
        #expect(throws: BridgeMessage.Rejection.invalidData(kind: "cancel")) {
            try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"cancel","data":{"sessionId":"ses_1"}}"#)
        }
        #expect(throws: BridgeMessage.Rejection.invalidData(kind: "complete")) {
            try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"complete","data":{"status":"done"}}"#)
        }
        #expect(throws: BridgeMessage.Rejection.invalidData(kind: "event")) { try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"event"}"#) }
        #expect(throws: BridgeMessage.Rejection.invalidData(kind: "error")) {
            try BridgeMessage(envelope: #"{"source":"vigil","version":1,"kind":"error","data":{"code":7}}"#)
        }
    }
}

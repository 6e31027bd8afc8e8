import Testing
@testable import VigilStore

/// A session's personal columns are sealed under its key and open only with it; values written
/// before sealing, and erased ones, are read as they are.
@Suite struct SessionSealingTests {
    @Test func aSealedValueOpensOnlyWithItsKey() throws {
        let key = SessionSealing.newKey(), other = SessionSealing.newKey()
        let text = #"{"documentNumber":"Q7ZK4M2P9"}"#
        let sealed = SessionSealing.seal(text, key: key)
        #expect(sealed.hasPrefix(SessionSealing.textMarker) && !sealed.contains("Q7ZK4M2P9"))
        #expect(SessionSealing.open(sealed, key: key) == text)
        #expect(SessionSealing.open(sealed, key: other) == nil && SessionSealing.open(sealed, key: nil) == nil)
        let bytes: [UInt8] = Array("result".utf8)
        let box = SessionSealing.seal(bytes, key: key)
        #expect(SessionSealing.open(box, key: key) == bytes && SessionSealing.open(box, key: nil) == nil)
        // Plain values (before sealing existed, or erased) read as they are, with or without a key.
        #expect(SessionSealing.open(text, key: nil) == text && SessionSealing.open(bytes, key: key) == bytes)
    }
}

import Testing
import VigilHTTP

@Suite struct HTTPRequestTests {
    @Test(arguments: [("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER  abc \t", "abc"), ("Bearer a b", "a b"),
                      ("Bearer ", nil), ("Bearer", nil), ("Basic abc", nil), ("Bearerabc", nil), ("", nil)] as [(String, String?)])
    func theBearerTokenIsTheAuthorizationValueAfterTheScheme(_ header: String, _ token: String?) {
        #expect(HTTPRequest(method: "GET", path: "/", headers: ["Authorization": header]).bearerToken == token)
    }

    @Test func requestsWithoutAuthorizationHaveNoBearerToken() {
        #expect(HTTPRequest(method: "GET", path: "/").bearerToken == nil)
    }
}

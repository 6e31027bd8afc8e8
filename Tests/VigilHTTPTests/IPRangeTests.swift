import Testing
import VigilHTTP

@Suite struct IPRangeTests {
    @Test func networksContainTheirAddressesOnly() throws {
        let ten = try #require(IPRange("10.0.0.0/8")), one = try #require(IPRange("192.0.2.7")), six = try #require(IPRange("fd00::/8"))
        #expect(ten.contains("10.255.1.2") && ten.contains("::ffff:10.0.0.1") && !ten.contains("11.0.0.1") && !ten.contains("fd00::1"))
        #expect(one.contains("192.0.2.7") && !one.contains("192.0.2.8"))
        #expect(six.contains("fd12::3") && !six.contains("fe80::1") && !six.contains("10.0.0.1"))
        #expect(try #require(IPRange("0.0.0.0/0")).contains("203.0.113.1"))
        for bad in ["", "10.0.0.0/33", "10.0.0/8", "fd00::/129", "host.example", "10.0.0.0/-1", "10.0.0.0/x"] { #expect(IPRange(bad) == nil, "\(bad)") }
    }

    @Test func theClientIsTheNearestAddressNotATrustedProxy() throws {
        let trusted = [try #require(IPRange("10.0.0.0/8"))]
        // An untrusted peer's header is ignored.
        #expect(IPRange.client(peer: "203.0.113.5", forwardedFor: "198.51.100.1", trusted: trusted) == "203.0.113.5")
        #expect(IPRange.client(peer: "10.0.0.2", forwardedFor: nil, trusted: trusted) == "10.0.0.2")
        #expect(IPRange.client(peer: "10.0.0.2", forwardedFor: "198.51.100.1", trusted: trusted) == "198.51.100.1")
        // A client may write anything on the left; the proxies' own entries are on the right.
        #expect(IPRange.client(peer: "10.0.0.2", forwardedFor: "1.2.3.4, 198.51.100.1, 10.0.0.9", trusted: trusted) == "198.51.100.1")
        #expect(IPRange.client(peer: "10.0.0.2", forwardedFor: "garbage, 10.0.0.9", trusted: trusted) == "unparsed:garbage")
        #expect(IPRange.client(peer: "10.0.0.2", forwardedFor: "198.51.100.1", trusted: []) == "10.0.0.2")
    }
}

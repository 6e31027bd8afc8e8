import Testing
import VigilCore

struct DeviceSessionDataTests {
    @Test func anSDKSsidReadsBackAsWrittenAndNothingElseReadsAsOne() {
        for integrity in DeviceSessionData.Integrity.allCases {
            let data = DeviceSessionData(deviceId: "0123456789abcdef0123456789abcdef", integrity: integrity)
            #expect(DeviceSessionData(ssid: data.ssid) == data)
        }
        for other in ["", "device-1", "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef.", ".clean",
                      "0123456789ABCDEF0123456789abcdef.clean", "0123456789abcdef0123456789abcdeg.clean", "0123456789abcdef0123456789abcdef.Clean",
                      "0123456789abcdef0123456789abcdef.clean.clean", "0123456789abcdef0123456789abcde.clean"] {
            #expect(DeviceSessionData(ssid: other) == nil, "\(other)")
        }
    }
}

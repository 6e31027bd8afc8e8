import Foundation
import Testing
import VigilTestSupport
@testable import VigilSDK

/// A host that only waits, for the stream contract (no server: the capture never ends well).
struct WaitingHost: VigilCaptureHost {
    let seconds: Double
    let error: VigilError?
    func capture(_ session: VigilCaptureSession) async throws(VigilError) {
        try? await Task.sleep(for: .seconds(seconds))
        if let error { throw error }
        if Task.isCancelled { throw .userCancelled }
    }
}

@MainActor @Suite(.scratchFolder) struct VigilClientTests {
    static func client() -> VigilClient {
        VigilClient(deviceIdStore: ScratchFolder.path("device-id"))
    }
    static let config = VigilConfig(serverURL: URL(string: "http://127.0.0.1:9")!, pollInterval: 0.1)

    static func states(_ stream: AsyncStream<VigilLivenessState>) async -> [VigilLivenessState] {
        var seen: [VigilLivenessState] = []
        for await state in stream { seen.append(state) }
        return seen
    }

    @Test func startingBeforeInitialiseGivesNotInitializedAndEnds() async {
        let client = Self.client()
        #expect(await Self.states(client.startLivenessCheck(host: WaitingHost(seconds: 0, error: nil), sessionId: "s", sessionToken: "t"))
                == [.error(.notInitialized)])
        #expect(await client.getSessionData() == .failure(.notInitialized))
    }

    @Test func aSecondStartWhileOneRunsIsRefusedAndTheFirstStillEndsOnce() async throws {
        let client = Self.client()
        try await client.initialize(config: Self.config)
        let first = client.startLivenessCheck(host: WaitingHost(seconds: 0.3, error: .securityException("test")), sessionId: "s", sessionToken: "t")
        let second = client.startLivenessCheck(host: WaitingHost(seconds: 0, error: nil), sessionId: "s", sessionToken: "t")
        #expect(await Self.states(second) == [.error(.captureAlreadyActive)])
        #expect(await Self.states(first) == [.loading, .error(.securityException("test"))])
        // Safe to start again after an error; an unreachable server ends in one error, not a hang.
        let third = await Self.states(client.startLivenessCheck(host: WaitingHost(seconds: 0, error: nil), sessionId: "s", sessionToken: "t"))
        #expect(third.count == 2 && third.first == .loading)
        if case .error(.networkError) = third.last {} else { Issue.record("\(third)") }
    }

    @Test func initialiseRefusesASecondCallAndBadConfigurationsUntilStop() async throws {
        let client = Self.client()
        await #expect(throws: VigilInitError.invalidConfiguration("serverURL must be https (http only for loopback)")) {
            try await client.initialize(config: VigilConfig(serverURL: URL(string: "http://vigil.example")!))
        }
        await #expect(throws: VigilInitError.self) { try await client.initialize(config: VigilConfig(serverURL: Self.config.serverURL, locale: "de")) }
        #expect(!client.isInitialized)
        try await client.initialize(config: Self.config)
        await #expect(throws: VigilInitError.alreadyInitialized) { try await client.initialize(config: Self.config) }
        let id = client.versionInfo.deviceId
        client.stop()
        #expect(!client.isInitialized && client.versionInfo.deviceId == nil)
        try await client.initialize(config: Self.config)
        #expect(client.versionInfo.deviceId == id && id?.count == 32)
    }

    @Test func sessionDataIsBestEffortAndStable() async throws {
        let client = Self.client()
        try await client.initialize(config: Self.config)
        let one = try await client.getSessionData().get().ssid
        let two = try await client.getSessionData().get().ssid
        #expect(one == two && one.hasSuffix(".clean") && one.count == 32 + 6)
        // A device id that cannot be stored gives an empty ssid, not a failure.
        let broken = VigilClient(deviceIdStore: URL(fileURLWithPath: "/proc/vigil-cannot-write/device-id"))
        try await broken.initialize(config: Self.config)
        #expect(await broken.getSessionData() == .success(VigilSessionData(ssid: "")))
    }

    @Test func cancellingTheConsumerEndsTheCaptureAsUserCancelled() async throws {
        let client = Self.client()
        try await client.initialize(config: Self.config)
        // The host waits until cancelled: under load the main actor can be held up for seconds, and
        // a host that gave up by itself first would end the stream another way.
        let stream = client.startLivenessCheck(host: WaitingHost(seconds: 600, error: nil), sessionId: "s", sessionToken: "t")
        try await Task.sleep(for: .milliseconds(100))
        client.stop()
        #expect(await Self.states(stream) == [.loading, .error(.userCancelled)])
    }

    @Test func aCaptureStartedRightAfterStopStaysTheActiveOneWhenTheStoppedOneEnds() async throws {
        let client = Self.client()
        try await client.initialize(config: Self.config)
        let stopped = client.startLivenessCheck(host: WaitingHost(seconds: 600, error: nil), sessionId: "s", sessionToken: "t")
        client.stop()
        try await client.initialize(config: Self.config)
        let next = client.startLivenessCheck(host: WaitingHost(seconds: 600, error: nil), sessionId: "s", sessionToken: "t")
        #expect(await Self.states(stopped) == [.loading, .error(.userCancelled)])
        #expect(await Self.states(client.startLivenessCheck(host: WaitingHost(seconds: 0, error: nil), sessionId: "s", sessionToken: "t"))
                == [.error(.captureAlreadyActive)])
        client.stop()
        #expect(await Self.states(next) == [.loading, .error(.userCancelled)])
    }

    @Test func everyErrorHasAMessageInEveryLanguageAndCancelIsNotAFailure() {
        let detail = "TracerPid 4242"
        let errors: [VigilError] = [.notInitialized, .securityException(detail), .cameraPermissionDenied, .networkError(detail), .serverError(detail),
                                    .unsupportedDevice, .captureAlreadyActive, .userTimeout, .userCancelled,
                                    .sessionNotCompleted(status: "expired", message: detail), .unexpected(detail)]
        for locale in VigilError.locales {
            let messages = errors.map { $0.userMessage(locale: locale) }
            #expect(Set(messages).count == errors.count, "\(locale)")
            #expect(messages.allSatisfy { !$0.contains(detail) })   // technical detail stays in `description`
        }
        #expect(errors.allSatisfy { $0.description.contains(detail) || ![.securityException(detail), .networkError(detail)].contains($0) })
        #expect(VigilError.securityException("TracerPid 42").userMessage() == VigilError.securityException("other").userMessage())
        #expect(VigilError.userCancelled.isUserCancellation && !VigilError.networkError("x").isUserCancellation)
    }
}

struct DeviceSecurityTests {
    @Test func tracerPidAndInstrumentationAreReadFromProcTexts() {
        #expect(DeviceSecurity.tracerPid(status: "Name:\tvigil\nTracerPid:\t4242\nUid:\t0\n") == 4242)
        #expect(DeviceSecurity.tracerPid(status: "TracerPid:\t0\n") == 0)
        let maps = """
            7f0000000000-7f0000001000 r-xp 00000000 08:01 1234 /usr/lib/x86_64-linux-gnu/libc.so.6
            7f0000002000-7f0000003000 r-xp 00000000 08:01 1235 /tmp/re.frida.server/frida-agent-64.so
            7f0000004000-7f0000005000 rw-p 00000000 00:00 0
            """
        #expect(DeviceSecurity.instrumentation(maps: maps) == ["/tmp/re.frida.server/frida-agent-64.so"])
    }

    #if os(Linux)
    @Test func aCleanTestProcessHasNoFindings() {
        #expect(DeviceSecurity.findings() == [])
    }
    #endif
}

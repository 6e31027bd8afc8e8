import Foundation
import VigilCore

/// Drives the device API directly with frames from a `FrameSource` (tests, kiosks, the
/// `vigil capture` CLI): sends the document photo when the session has a document step, then
/// each frame, shows the source what the page would show (the challenge, the reflection
/// colour), then finishes and polls the status until it is final.
public struct HeadlessCaptureHost: VigilCaptureHost {
    private let makeSource: @Sendable () -> any FrameSource
    /// A photo of the identity document (JPEG), sent when the session's policy asks for one.
    public var document: [UInt8]?
    /// Gives up polling after this many seconds.
    public var pollTimeout: TimeInterval = 60
    /// Gives up after network errors lasting this long.
    public var networkTimeout: TimeInterval = 15
    /// Called with every frame answer (the CLI prints them).
    public var onAnswer: (@Sendable (DeviceAPIClient.FrameAnswer) -> Void)?

    /// A host taking frames from a fresh `source()` per capture.
    public init(source: @escaping @Sendable () -> any FrameSource) {
        makeSource = source
    }

    public func capture(_ session: VigilCaptureSession) async throws(VigilError) {
        var source = makeSource()
        var screen = CaptureScreen()
        let clock = ContinuousClock(), start = clock.now
        var lastSecurity = clock.now
        var failingSince: ContinuousClock.Instant?
        func elapsedMs() -> Int { Int((clock.now - start) / .milliseconds(1)) }
        try session.checkSecurity()
        // Best effort, as the page does it: the signed result then names this device.
        if let id = session.deviceId { try? await session.api.report(deviceId: id) }
        try await sendDocument(session)
        frames: while true {
            if Task.isCancelled { throw .userCancelled }
            if clock.now - lastSecurity >= .seconds(session.securityInterval) {
                try session.checkSecurity()
                lastSecurity = clock.now
            }
            let frame: CapturedFrame?
            do { frame = try source.nextFrame(elapsedMs: elapsedMs(), screen: screen) } catch let error as VigilError { throw error } catch {
                throw .unexpected("frame source: \(error)")
            }
            guard let frame else { break }
            if source.isPaced, frame.timestampMs > elapsedMs() {
                try? await Task.sleep(for: .milliseconds(frame.timestampMs - elapsedMs()))
            }
            do {
                let answer = try await session.api.send(frame: frame.jpeg, captureMs: frame.timestampMs)
                failingSince = nil
                onAnswer?(answer)
                if answer.isFinal { break frames }
                update(&screen, answer, at: frame.timestampMs)
            } catch let refusal as DeviceAPIClient.Refusal {
                switch refusal.errorCode {
                // Too fast, or no room on the server yet: the frame is dropped and the next waits as long as it says.
                case .rateLimited?, .serverBusy?: try? await Task.sleep(for: .seconds(min(5, refusal.retryAfter ?? 0.5)))
                case .sessionFinished?, .sessionLocked?, .sessionExpired?: break frames   // finished meanwhile: the status says how
                case .invalidToken?: throw .invalidToken
                case .concurrentUpdate?: break   // another request won the race: the next frame goes on
                default: throw .serverError("\(refusal.status) \(refusal.code): \(refusal.message)")
                }
            } catch {
                failingSince = failingSince ?? clock.now
                if clock.now - failingSince! > .seconds(networkTimeout) { throw .networkError("\(error)") }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        try session.checkSecurity()
        // A recording may end before the server decided: decide on what was sent, then poll.
        if let status = try? await session.api.status(), !status.isFinal { _ = try? await session.api.finish() }
        try await session.waitForFinalStatus(timeout: pollTimeout)
    }

    /// The document photo, when the session's step waits for one; a photo the server does not
    /// take ends the capture with its guidance (a file does not get better by sending it again).
    private func sendDocument(_ session: VigilCaptureSession) async throws(VigilError) {
        let step: DeviceAPIClient.DocumentStep?
        do { step = try await session.api.status().document } catch { throw .networkError("\(error)") }
        guard let step, !step.captured else { return }
        guard let document else {
            if step.required { throw .documentNotCaptured("the session asks for a document and none was given") }
            return
        }
        let answer: DeviceAPIClient.DocumentAnswer
        do {
            answer = try await session.api.send(document: document)
        } catch let refusal as DeviceAPIClient.Refusal {
            if refusal.errorCode == .invalidToken { throw .invalidToken }
            throw .serverError("\(refusal.status) \(refusal.code): \(refusal.message)")
        } catch {
            throw .networkError("\(error)")
        }
        guard answer.captured else { throw .documentNotCaptured(answer.guidance?.rawValue ?? "unknown") }
    }

    private func update(_ screen: inout CaptureScreen, _ answer: DeviceAPIClient.FrameAnswer, at ms: Int) {
        if let c = answer.challenge, c.state == "active" {
            if screen.challenge?.index != c.index { screen.challenge = (c.index, c.kind, ms + 100) }
        } else {
            screen.challenge = nil
        }
        screen.flashColor = nil
        if let r = answer.reflection, r.stepMs > 0 {
            let step = (ms + 100 - r.startMs) / r.stepMs
            if ms + 100 >= r.startMs, step < r.colors.count { screen.flashColor = r.colors[step] }
        }
    }
}

import Foundation
import VigilCore
import VigilHTTP
import VigilStore

/// `POST /v1/client/camera`: the capture page reports the camera it opened (again after a
/// switch). A label naming a known virtual camera sets `risk.virtualCamera`, which stays set for
/// the session; a policy with `refuseVirtualCamera` then fails it (check `camera`).
extension DeviceAPI {
    /// The report's body.
    struct CameraReport: Decodable {
        let label: String
        let facing: SessionRisk.Camera.Facing?
    }

    /// The report's answer: what the server made of the label.
    struct CameraAnswer: Encodable {
        let virtualCamera: Bool
        let refused: Bool
    }

    static let maxCameraLabel = 128

    static func camera(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try context.openDeviceSession(request)
        let report = try context.decode(CameraReport.self, from: request.body, fields: ["label", "facing"])
        guard report.label.count <= maxCameraLabel, !report.label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw HTTPError(.invalidField, "label must be at most \(maxCameraLabel) characters without control characters")
        }
        let virtual = VirtualCamera.name(inLabel: report.label) != nil
        return try context.capture.change(record) { (next, _) in
            var risk = next.risk ?? SessionRisk()
            risk.camera = SessionRisk.Camera(label: report.label, facing: report.facing ?? .unknown)
            risk.virtualCamera = virtual || risk.virtualCamera == true
            next.risk = risk
            return .json(CameraAnswer(virtualCamera: risk.virtualCamera == true,
                                      refused: risk.virtualCamera == true && next.policy.refuseVirtualCamera))
        }
    }
}

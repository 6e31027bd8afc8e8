import Foundation
import VigilCore
import VigilHTTP
import VigilStore

/// `POST /v1/client/device`: the capture page's one report of its persistent device id (from the
/// host app's `getDeviceId()` or the page's own storage). A risk signal, stored with the session
/// and published in its result, like the location.
extension DeviceAPI {
    /// The report's body.
    struct DeviceIdReport: Decodable {
        let deviceId: String
    }

    static func deviceId(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try context.openDeviceSession(request)
        let report = try context.decode(DeviceIdReport.self, from: request.body, fields: ["deviceId"])
        guard SessionRisk.isDeviceId(report.deviceId) else {
            throw HTTPError(.invalidField, "deviceId must be 8-128 characters of A-Z a-z 0-9 - _ . :")
        }
        return try context.capture.change(record) { (next, _) throws(ServiceError) in
            guard next.risk?.deviceId == nil else {
                throw ServiceError(.deviceIdAlreadyReported, "the device id was reported already")
            }
            next.risk = next.risk ?? SessionRisk()
            next.risk?.deviceId = report.deviceId
            return .json(["deviceId": report.deviceId])
        }
    }
}

import Foundation
import VigilCore
import VigilHTTP
import VigilStore

/// `POST /v1/client/location`: the page's one report of where the device is, for sessions
/// created with `collectLocation`. A risk signal, stored with the session and published in its
/// result; never a reason to fail.
extension DeviceAPI {
    /// The report's body.
    struct LocationReport: Decodable {
        let status: SessionRisk.Location.Status
        let latitude: Double?, longitude: Double?, accuracyMeters: Double?
    }

    static func location(_ request: HTTPRequest, _ context: ServerContext) throws -> HTTPResponse {
        let record = try context.openDeviceSession(request)
        let report = try context.decode(LocationReport.self, from: request.body, fields: ["status", "latitude", "longitude", "accuracyMeters"])
        let coordinates = [report.latitude, report.longitude, report.accuracyMeters]
        switch report.status {
        case .granted:
            guard let latitude = report.latitude, let longitude = report.longitude, (-90...90).contains(latitude), (-180...180).contains(longitude),
                  (0...1_000_000).contains(report.accuracyMeters ?? 0) else {
                throw HTTPError(.invalidField, "a granted location needs latitude (-90...90), longitude (-180...180) and accuracyMeters >= 0")
            }
        case .missing:
            throw HTTPError(.invalidField, "status must be granted, denied, timeout or unavailable")
        case .denied, .timeout, .unavailable:
            guard coordinates.allSatisfy({ $0 == nil }) else { throw HTTPError(.invalidField, "only a granted location has coordinates") }
        }
        return try context.capture.change(record) { (next, _) throws(ServiceError) in
            guard next.risk?.location != nil else {
                throw ServiceError(.locationNotRequested, "this session was not created with collectLocation")
            }
            guard next.risk?.location?.status == .missing else {
                throw ServiceError(.locationAlreadyReported, "the location was reported already")
            }
            next.risk?.location = SessionRisk.Location(status: report.status, latitude: report.latitude, longitude: report.longitude,
                                                       accuracyMeters: report.accuracyMeters)
            return .json(["status": report.status.rawValue])
        }
    }
}

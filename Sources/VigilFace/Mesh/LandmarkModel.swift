import Foundation

/// Which model puts the landmarks on a face.
public enum LandmarkModel: String, Sendable, CaseIterable {
    /// dlib's 68-point shape predictor with insightface's mean face, the baseline the mesh was
    /// measured against: NOT for commercial use (trained on iBUG 300-W; THIRD-PARTY.md). Only with
    /// `VIGIL_LANDMARKS=ibug68`, for which scripts/setup then fetches its files.
    case ibug68
    /// MediaPipe's 478-point face mesh (Apache-2.0), read in the 68-point scheme
    /// (`MeshLandmarks.ibugIndices`): the default.
    case mesh

    /// `$VIGIL_LANDMARKS` (`mesh` or `ibug68`), else `mesh`.
    public static var configured: LandmarkModel {
        ProcessInfo.processInfo.environment["VIGIL_LANDMARKS"].flatMap(LandmarkModel.init(rawValue:)) ?? .mesh
    }
}

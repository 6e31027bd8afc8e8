import Foundation

/// Which model puts the landmarks on a face.
public enum LandmarkModel: String, Sendable, CaseIterable {
    /// dlib's 68-point shape predictor: trained on iBUG 300-W, not for commercial use
    /// (THIRD-PARTY.md).
    case ibug68
    /// MediaPipe's 468-point face mesh (Apache-2.0), read in the 68-point scheme
    /// (`MeshLandmarks.ibugIndices`).
    case mesh

    /// `$VIGIL_LANDMARKS` (`ibug68` or `mesh`), else `ibug68`, while the mesh is measured
    /// against it (issue 37).
    public static var configured: LandmarkModel {
        ProcessInfo.processInfo.environment["VIGIL_LANDMARKS"].flatMap(LandmarkModel.init(rawValue:)) ?? .ibug68
    }
}

import VigilCore

/// Measurements derived from 68 landmarks alone.
enum FaceGeometry {
    /// Eye aspect ratio of the six points of one eye, in landmark order.
    static func eyeAspectRatio(_ p: ArraySlice<Point2D>) -> Double {
        let i = p.startIndex
        let width = p[i].distance(to: p[i + 3])
        guard width > 0 else { return 0 }
        return (p[i + 1].distance(to: p[i + 5]) + p[i + 2].distance(to: p[i + 4])) / (2 * width)
    }

    /// Eye openness: points 42-47 are the person's left eye, 36-41 the right.
    static func eyes(_ landmarks: [Point2D]) -> EyeOpenness {
        EyeOpenness(left: eyeAspectRatio(landmarks[42...47]), right: eyeAspectRatio(landmarks[36...41]))
    }

    /// Inner-lip opening (61-67, 62-66, 63-65) over the outer mouth width (48-54).
    static func mouth(_ landmarks: [Point2D]) -> Double {
        let width = landmarks[48].distance(to: landmarks[54])
        guard width > 0 else { return 0 }
        let gap = landmarks[61].distance(to: landmarks[67]) + landmarks[62].distance(to: landmarks[66])
            + landmarks[63].distance(to: landmarks[65])
        return gap / (3 * width)
    }

    /// Centre of the six points of an eye.
    static func centre(_ p: ArraySlice<Point2D>) -> Point2D {
        let n = Double(p.count)
        return Point2D(x: p.reduce(0) { $0 + $1.x } / n, y: p.reduce(0) { $0 + $1.y } / n)
    }

    static func interocularDistance(_ landmarks: [Point2D]) -> Double {
        centre(landmarks[36...41]).distance(to: centre(landmarks[42...47]))
    }

    static func placement(box: Rect, landmarks: [Point2D], width: Int, height: Int) -> FacePlacement {
        let w = Double(width), h = Double(height)
        // Relative to the shorter side, so that a size means the same in portrait and landscape.
        return FacePlacement(relativeSize: max(box.width, box.height) / min(w, h),
                             centerOffset: Point2D(x: (box.midX - w / 2) / w, y: (box.midY - h / 2) / h),
                             interocularDistance: interocularDistance(landmarks))
    }
}

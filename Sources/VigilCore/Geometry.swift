/// A point in image pixel coordinates (x right, y down).
public struct Point2D: Codable, Hashable, Sendable {
    /// Horizontal coordinate in pixels.
    public var x: Double
    /// Vertical coordinate in pixels.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// Euclidean distance to another point.
    public func distance(to other: Point2D) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }
}

/// An axis-aligned rectangle in image pixel coordinates.
public struct Rect: Codable, Hashable, Sendable {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width in pixels.
    public var width: Double
    /// Height in pixels.
    public var height: Double

    /// Creates a rectangle.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Horizontal centre.
    public var midX: Double { x + width / 2 }
    /// Vertical centre.
    public var midY: Double { y + height / 2 }
    /// Area in square pixels (0 for empty rectangles).
    public var area: Double { max(0, width) * max(0, height) }

    /// The overlapping part of two rectangles, or nil when they do not overlap.
    public func intersection(_ other: Rect) -> Rect? {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        guard right > left, bottom > top else { return nil }
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Intersection over union, in [0, 1].
    public func overlap(with other: Rect) -> Double {
        guard let shared = intersection(other) else { return 0 }
        let union = area + other.area - shared.area
        return union > 0 ? shared.area / union : 0
    }

    /// The rectangle grown by `factor` around its centre.
    public func scaled(by factor: Double) -> Rect {
        Rect(x: midX - width * factor / 2, y: midY - height * factor / 2, width: width * factor, height: height * factor)
    }

    /// The smallest rectangle holding all points.
    public static func bounding(_ points: [Point2D]) -> Rect? {
        guard let first = points.first else { return nil }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for p in points {
            minX = min(minX, p.x); maxX = max(maxX, p.x)
            minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}

/// Risk signals gathered around a session, stored with it and published in its signed result.
public struct SessionRisk: Codable, Hashable, Sendable {
    /// Failed sessions of the same `ssid` shortly before this one was created.
    public struct Velocity: Codable, Hashable, Sendable {
        /// Failed sessions found in the window.
        public var failedSessions: Int
        /// The window looked at (seconds before creation).
        public var windowSeconds: Int
        /// Whether they made the session's policy one step stricter than the tenant asked.
        public var raised: Bool

        /// A velocity signal.
        public init(failedSessions: Int, windowSeconds: Int, raised: Bool) {
            self.failedSessions = failedSessions
            self.windowSeconds = windowSeconds
            self.raised = raised
        }
    }

    /// Where the device said it was, when the session asked (`collectLocation`).
    public struct Location: Codable, Hashable, Sendable {
        /// What came of asking.
        public enum Status: String, Codable, Sendable {
            /// A position was given.
            case granted
            /// The person or the browser refused.
            case denied
            /// No answer within the page's time limit.
            case timeout
            /// The device could not tell.
            case unavailable
            /// Asked for, nothing reported before the session ended.
            case missing
        }
        /// What came of asking.
        public var status: Status
        /// WGS 84 degrees and the accuracy radius in metres, when granted.
        public var latitude: Double?, longitude: Double?, accuracyMeters: Double?

        /// A location signal.
        public init(status: Status, latitude: Double? = nil, longitude: Double? = nil, accuracyMeters: Double? = nil) {
            self.status = status
            self.latitude = latitude
            self.longitude = longitude
            self.accuracyMeters = accuracyMeters
        }
    }

    /// The camera the capture page used, as the browser names it.
    public struct Camera: Codable, Hashable, Sendable {
        /// Which way the camera faces, as the browser reports it.
        public enum Facing: String, Codable, Sendable {
            /// Towards the person (a front or laptop camera).
            case user
            /// Away from the person.
            case environment
            /// Not reported.
            case unknown
        }
        /// The device label (at most 128 characters; empty when the browser gives none).
        public var label: String
        /// Which way it faces.
        public var facing: Facing

        /// A camera report.
        public init(label: String, facing: Facing) {
            self.label = label
            self.facing = facing
        }
    }

    /// The velocity signal, when the session carried an `ssid`.
    public var velocity: Velocity?
    /// The location signal, when the session asked for one.
    public var location: Location?
    /// The capture page's persistent device id (the host app's `getDeviceId()`, else the page's
    /// own stored one), when the page reported it.
    public var deviceId: String?
    /// True when the person declined the colour flashes and went on with motions only (the
    /// policy's `motionOnlyFallback`): this result rests on no reflection check.
    public var reflectionDeclined: Bool?
    /// The SDK's device-integrity verdict from the session's `ssid`, when it is an SDK one; a
    /// `flagged` device made the session's policy one step stricter. Reported by the device, so
    /// `clean` proves nothing; `flagged` is still worth acting on.
    public var deviceIntegrity: DeviceSessionData.Integrity?

    /// The last camera the page reported, when it reported one.
    public var camera: Camera?
    /// True once any camera the page reported in this session had the label of a known virtual
    /// camera (`VirtualCamera`), false when the page reported only others: a hint, not proof.
    public var virtualCamera: Bool?

    /// Signals.
    public init(velocity: Velocity? = nil, location: Location? = nil, deviceId: String? = nil, reflectionDeclined: Bool? = nil,
                deviceIntegrity: DeviceSessionData.Integrity? = nil, camera: Camera? = nil, virtualCamera: Bool? = nil) {
        self.camera = camera
        self.virtualCamera = virtualCamera
        self.velocity = velocity
        self.location = location
        self.deviceId = deviceId
        self.reflectionDeclined = reflectionDeclined
        self.deviceIntegrity = deviceIntegrity
    }

    /// The signals without what identifies a person or a device: the location's coordinates
    /// (its status stays), the device id and the camera's label (what `DELETE` erases).
    public var erasingPersonalData: SessionRisk {
        var erased = self
        if let status = location?.status { erased.location = Location(status: status) }
        erased.deviceId = nil
        if let facing = camera?.facing { erased.camera = Camera(label: "", facing: facing) }
        return erased
    }

    /// Whether `text` can be a device id: 8 to 128 characters of `A-Z a-z 0-9 - _ . :`.
    public static func isDeviceId(_ text: String) -> Bool {
        (8...128).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"): true
            default: false
            }
        }
    }
}

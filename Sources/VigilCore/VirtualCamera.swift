/// Virtual cameras: software that presents any video (a file, a screen, a face-swap filter) to
/// the browser as a webcam, the usual way of injecting a feed into a capture page. Known by the
/// names their drivers give the device. A label is what the browser reports, so a match is a hint
/// that an attacker can remove, never proof either way.
public enum VirtualCamera {
    /// Names (lower case) found in the device labels of widely used virtual-camera software.
    public static let knownNames = [
        "obs virtual", "obs-camera", "obs camera", "manycam", "snap camera", "xsplit", "droidcam", "e2esoft", "vcam", "splitcam",
        "camtwist", "youcam", "webcamoid", "mmhmm", "altercam", "nvidia broadcast", "chromacam", "iriun", "ivcam", "epoccam",
        "prism live", "vmix", "streamlabs", "facerig", "animaze", "unity video capture", "virtual camera", "virtual webcam",
        "dummy video device", "v4l2loopback",
    ]

    /// The known virtual camera `label` names, if any (case-insensitive).
    public static func name(inLabel label: String) -> String? {
        let lower = label.lowercased()
        return knownNames.first { lower.contains($0) }
    }
}

import VigilCore

/// What a person does in a recorded clip of a real face, marked by eye (never by the engine
/// under test): each motion's start, peak and end, and when the face rests. Times in seconds
/// from the clip's start.
public struct ClipAnnotation: Codable, Sendable {
    /// One motion the person makes.
    public struct Event: Codable, Sendable {
        /// `blink`, `mouthOpen`, `turnLeft`, `turnRight`, `nod`, `shake`, or one the engine does
        /// not ask for (`lookUp`).
        public var motion: String
        public var start: Double, peak: Double, end: Double
        public var note: String?
        /// The annotator doubted the motion is what its name says: a partial blink, a turn of
        /// uncertain size, an opening close to ordinary speech.
        public var doubtful: Bool?

        /// The challenge this event answers, when the engine has one of its kind.
        public var kind: Motion? { Motion(rawValue: motion) }
    }

    /// A stretch where the face looks at the camera, eyes open, mouth closed, head still.
    public struct Interval: Codable, Sendable {
        public var start: Double, end: Double
    }

    /// The clip's file name.
    public var clip: String
    public var events: [Event]
    public var neutral: [Interval]
    public var notes: String?
}

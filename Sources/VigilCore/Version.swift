public enum VigilCoreVersion { public static let string = "0.1.0" }

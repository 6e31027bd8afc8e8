import Foundation

/// Foundation's JSON object model for the mutator (kept out of `Mutator`, which is plain Swift).
enum JSONSerializationBridge {
    /// The JSON object in `bytes`, or nil.
    static func object(_ bytes: [UInt8]) throws -> [String: Any]? {
        try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? [String: Any]
    }

    /// `object` as JSON bytes, or nil when Foundation cannot write it.
    static func data(_ object: [String: Any]) -> [UInt8]? {
        guard JSONSerialization.isValidJSONObject(object) else { return nil }
        return (try? JSONSerialization.data(withJSONObject: object)).map { [UInt8]($0) }
    }

    /// Arrays nested `depth` deep.
    static func nested(depth: Int) -> Any {
        var value: Any = [Any]()
        for _ in 0..<depth { value = [value] }
        return value
    }
}

/// JSON null for the mutator.
enum NSNullBridge {
    static var null: Any { NSNull() }
}

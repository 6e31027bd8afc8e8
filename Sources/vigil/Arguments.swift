/// Minimal command-line parsing: `--name value` options, `--flag` switches, positionals; with
/// `environment`, an option or switch not given reads `VIGIL_NAME` (`--base-url` from
/// `VIGIL_BASE_URL`; a switch is on for `1`, `true` or `yes`).
struct Arguments {
    private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments`; `valued` names the options that take a value.
    init(_ arguments: [String], valued: Set<String>, switches: Set<String> = [], environment: [String: String] = [:]) throws {
        defer {
            for name in valued where options[name] == nil {
                if let value = environment[Self.variable(name)] { options[name] = value }
            }
            for name in switches where ["1", "true", "yes"].contains(environment[Self.variable(name)]?.lowercased() ?? "") {
                flags.insert(name)
            }
        }
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2))
                if valued.contains(name) {
                    guard i + 1 < arguments.count else { throw CLIError.usage("option --\(name) needs a value") }
                    options[name] = arguments[i + 1]
                    i += 1
                } else if switches.contains(name) {
                    flags.insert(name)
                } else {
                    throw CLIError.usage("unknown option --\(name)")
                }
            } else {
                positionals.append(argument)
            }
            i += 1
        }
    }

    /// The environment variable an option falls back to: `VIGIL_` and its name in capitals.
    static func variable(_ name: String) -> String { "VIGIL_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    func value(_ name: String) -> String? { options[name] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    func double(_ name: String, default fallback: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = options[name] else { return fallback }
        guard let number = Double(text), range.contains(number) else {
            throw CLIError.usage("--\(name) must be a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}

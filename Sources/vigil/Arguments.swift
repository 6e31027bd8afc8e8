/// Minimal command-line parsing: `--name value` options, `--flag` switches, positionals.
struct Arguments {
    private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments`; `valued` names the options that take a value.
    init(_ arguments: [String], valued: Set<String>, switches: Set<String> = []) throws {
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

/// One parser under fuzzing: seed inputs and how to mutate and run them.
protocol FuzzTarget {
    /// The name given to `--target`.
    var name: String { get }
    /// Runs input `index` of the run seeded `seed`: what the parser answered.
    func run(index: Int, seed: UInt64) -> FuzzOutcome
    /// An input that takes longer than this (ms) is counted as a hang.
    var hangMs: Double { get }
}

extension FuzzTarget {
    /// A parser answers within a second.
    var hangMs: Double { 1000 }
}

/// What one input got.
enum FuzzOutcome: Equatable {
    /// A typed error or a refusal: what bad input should get.
    case handled
    /// Parsed as valid (a decoded image, a 2xx answer): the mutation left it usable.
    case accepted
    /// A 5xx answer (the server's fault, not the input's).
    case serverError(Int)
    /// No answer, the server still answering others (the connection closed, or it waits for
    /// the rest of a request cut short).
    case noAnswer
    /// A verifier accepted changed signed bytes: a forgery.
    case forged
    /// 505: the request line names an HTTP version the server does not speak.
    case versionNotSupported
    /// The server did not answer a health check within a second after this input.
    case stalled
}

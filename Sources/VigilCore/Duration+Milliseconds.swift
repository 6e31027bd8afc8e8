extension Duration {
    /// The duration in milliseconds, with its fraction (for logs and timings).
    public var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

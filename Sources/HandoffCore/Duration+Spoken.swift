extension Duration {
    /// "30 s", "0.25 s": a bound as a person reads it, to the millisecond (no Foundation
    /// formatter for one number; a whole-seconds division printed a quarter second as "0 s").
    public var spokenSeconds: String {
        let (s, atto) = components
        let ms = s * 1000 + atto / 1_000_000_000_000_000
        return ms % 1000 == 0 ? "\(ms / 1000) s" : "\(Double(ms) / 1000) s"
    }
}

/// The names paired machines are kept under. A machine chooses the name it pairs under, so two
/// may choose the same one (a stranger once paired as "good-peer" beside the real good-peer, and
/// `unpair good-peer` removed the real one): a name already paired under another key gets a
/// suffix, `-2`, `-3`, … so that every name says whom it means.
public enum PairedNames {
    public static func unique(_ name: String, taken: Set<String>) -> String {
        guard taken.contains(name) else { return name }
        var n = 2
        while taken.contains("\(name)-\(n)") { n += 1 }
        return "\(name)-\(n)"
    }
}

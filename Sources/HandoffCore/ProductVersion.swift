/// The version handoffd, handoffctl and hawknotes print for `--version`: the package's, in
/// packaging/VERSION (a unit test keeps the two equal; the binaries cannot read that file).
public enum ProductVersion {
    public static let current = "0.2.0"
}

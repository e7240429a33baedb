/// A webpage being read (NSUserActivityTypeBrowsingWeb): its `webpageURL` is what continues it,
/// in the app registered for the type or, with none, the machine's opener. Declared on every
/// machine, as the file type is, so that any browser can hand a page on.
public enum WebBrowsing {
    public static let type = try! ActivityType("org.handoffd.browsing-web")
    public static let declaration = ActivityTypeDeclaration(type: type)
}

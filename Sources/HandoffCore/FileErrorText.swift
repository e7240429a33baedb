#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

extension Error {
    /// A file error as a person reads it: the system's words for the errno under it ("No such
    /// file or directory"), else the error itself. (`localizedDescription` is Foundation's, with
    /// ICU; FoundationEssentials' file errors carry the POSIX error underneath.)
    public var fileErrorText: String {
        if let posix = self as? POSIXError ?? (self as? CocoaError)?.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        // Read as text, bytes that are not UTF-8 (a binary, a file in another encoding): it said
        // "CocoaError(code: ...(rawValue: 259), userInfo: [:])".
        if let cocoa = self as? CocoaError, [.fileReadCorruptFile, .fileReadInapplicableStringEncoding].contains(cocoa.code) {
            return "it is not UTF-8 text"
        }
        return "\(self)"
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// A TSIG key as BIND writes it (`tsig-keygen NAME` prints one; named.conf includes the same file):
///
///     key "handoff-key" {
///         algorithm hmac-sha256;
///         secret "base64...";
///     };
///
/// The file is a secret like the identity key: it must be a plain file of handoffd's own user,
/// readable by nobody else.
public struct TSIGKey: Sendable, Equatable {
    public let name: String
    public let algorithm: String
    /// Base64, as in the file (ldns takes it so).
    public let secret: String

    public static let algorithms: Set<String> = ["hmac-sha256", "hmac-sha512", "hmac-sha1"]

    public init(name: String, algorithm: String, secret: String) {
        (self.name, self.algorithm, self.secret) = (name, algorithm, secret)
    }

    /// Reads and checks the file at `path`.
    public static func load(path: String) throws(WideAreaError) -> TSIGKey {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            throw .keyFile(
                path: path, reason: "\(String(cString: strerror(errno))); make one with `tsig-keygen -a hmac-sha256 handoff-key > \(path)`")
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw .keyFile(path: path, reason: "is not a plain file (a link or a directory); put the key itself there")
        }
        if st.st_mode & 0o077 != 0 {
            throw .keyFile(
                path: path,
                reason:
                    "is readable or writable by others (mode \(String(st.st_mode & 0o777, radix: 8))); run `chmod 600 \(path)`, and make a new key if someone may have copied it; unicast DNS-SD is off until then"
            )
        }
        if st.st_uid != geteuid() {
            throw .keyFile(
                path: path,
                reason:
                    "belongs to uid \(st.st_uid), not to handoffd's uid \(geteuid()); run `chown \(geteuid()) \(path)`; unicast DNS-SD is off until then"
            )
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw .keyFile(path: path, reason: "cannot be read")
        }
        return try parse(text, path: path)
    }

    /// The first `key` statement of a named.conf-style text.
    public static func parse(_ text: String, path: String) throws(WideAreaError) -> TSIGKey {
        let tokens = tokenize(text)
        guard let k = tokens.firstIndex(of: "key"), k + 2 < tokens.count, tokens[k + 2] == "{" else {
            throw .keyFile(path: path, reason: "holds no `key \"NAME\" { algorithm ...; secret \"...\"; };` statement (the output of tsig-keygen)")
        }
        let name = unquote(tokens[k + 1])
        var algorithm: String?
        var secret: String?
        var i = k + 3
        while i + 1 < tokens.count, tokens[i] != "}" {
            switch tokens[i] {
            case "algorithm": algorithm = unquote(tokens[i + 1]).lowercased()
            case "secret": secret = unquote(tokens[i + 1])
            default: break
            }
            // Each clause ends with ';'.
            while i < tokens.count, tokens[i] != ";" { i += 1 }
            i += 1
        }
        guard !name.isEmpty, name.utf8.count <= 253 else { throw .keyFile(path: path, reason: "the key has no usable name") }
        guard let algorithm else { throw .keyFile(path: path, reason: "key '\(name)' has no algorithm") }
        guard algorithms.contains(algorithm) else {
            throw .keyFile(
                path: path,
                reason: "key '\(name)' uses \(algorithm); use one of \(algorithms.sorted().joined(separator: ", ")) (tsig-keygen -a hmac-sha256)")
        }
        guard let secret, let bytes = Data(base64Encoded: secret), bytes.count >= 16 else {
            throw .keyFile(path: path, reason: "key '\(name)' has no secret of at least 16 bytes in base64")
        }
        return TSIGKey(name: name, algorithm: algorithm, secret: secret)
    }

    /// Words, quoted strings (kept with their quotes), and `{`, `}`, `;` on their own; comments
    /// (`#` and `//` to the end of the line, `/* */`) dropped, but only outside quotes: a base64
    /// secret may hold `//`.
    static func tokenize(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var quoted = false
        func flush() {
            if !current.isEmpty { tokens.append(current) }
            current = ""
        }
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
            i += 1
            if quoted {
                current.append(c)
                if c == "\"" {
                    quoted = false
                    flush()
                }
            } else if c == "#" || (c == "/" && next == "/") {
                flush()
                while i < chars.count, chars[i] != "\n" { i += 1 }
            } else if c == "/" && next == "*" {
                flush()
                i += 1
                while i + 1 < chars.count, !(chars[i] == "*" && chars[i + 1] == "/") { i += 1 }
                i += 2
            } else if c == "\"" {
                flush()
                quoted = true
                current.append(c)
            } else if c == "{" || c == "}" || c == ";" {
                flush()
                tokens.append(String(c))
            } else if c.isWhitespace {
                flush()
            } else {
                current.append(c)
            }
        }
        flush()
        return tokens
    }

    static func unquote(_ token: String) -> String {
        token.count >= 2 && token.hasPrefix("\"") && token.hasSuffix("\"") ? String(token.dropFirst().dropLast()) : token
    }
}

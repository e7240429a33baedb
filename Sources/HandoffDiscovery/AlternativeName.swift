/// Avahi's renaming rule, for the in-memory fake: "name" -> "name #2" -> "name #3".
public func fakeAlternativeServiceName(_ name: String) -> String {
    if let hash = name.ranges(of: " #").last, let n = Int(name[hash.upperBound...]) {
        return "\(name[..<hash.lowerBound]) #\(n + 1)"
    }
    return "\(name) #2"
}

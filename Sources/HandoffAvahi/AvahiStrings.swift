import CAvahi

/// TXT records to and from AvahiStringList.
enum AvahiStrings {
    /// A new list in the record's order (avahi_string_list_add_arbitrary prepends). Free with
    /// avahi_string_list_free.
    static func make(_ strings: [[UInt8]]) -> UnsafeMutablePointer<AvahiStringList>? {
        var list: UnsafeMutablePointer<AvahiStringList>? = nil
        for s in strings.reversed() {
            list = s.withUnsafeBufferPointer { avahi_string_list_add_arbitrary(list, $0.baseAddress, $0.count) }
        }
        return list
    }

    static func read(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var node = list
        while let n = node {
            let size = avahi_string_list_get_size(n)
            if let text = avahi_string_list_get_text(n) { out.append(Array(UnsafeBufferPointer(start: text, count: size))) }
            node = avahi_string_list_get_next(n)
        }
        return out
    }

    /// Parses raw TXT rdata, as a record browser delivers it.
    static func parse(_ rdata: UnsafeRawPointer?, size: Int) -> [[UInt8]]? {
        guard let rdata else { return nil }
        var list: UnsafeMutablePointer<AvahiStringList>? = nil
        guard avahi_string_list_parse(rdata, size, &list) == 0 else { return nil }
        defer { avahi_string_list_free(list) }
        return read(list)
    }

    static func withList<R>(_ strings: [[UInt8]], _ body: (UnsafeMutablePointer<AvahiStringList>?) -> R) -> R {
        let list = make(strings)
        defer { avahi_string_list_free(list) }
        return body(list)
    }
}

/// Avahi's error text for a code.
func avahiErrorText(_ code: Int32) -> String { String(cString: avahi_strerror(code)) }

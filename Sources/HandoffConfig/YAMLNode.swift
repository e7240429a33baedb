import CYAML

/// A YAML document as handoffd's configuration uses it: scalars, lists and mappings whose keys
/// are plain names. Composed from libyaml's events.
///
/// Written here rather than through Yams (docs/ARCHITECTURE.md, "Foundation"): Yams imports
/// Foundation, which links ICU and its 30 MB of data into handoffd, and compiles its resolvers'
/// regular expressions at every start. The configuration needs only this.
indirect enum YAMLNode: Sendable {
    /// `plain`: written without quotes or an explicit tag, so `~`, `null` or nothing mean no value.
    case scalar(String, plain: Bool, line: Int)
    case sequence([YAMLNode], line: Int)
    case mapping([(key: String, value: YAMLNode)], line: Int)

    var isNull: Bool {
        guard case .scalar(let text, true, _) = self else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    var line: Int {
        switch self {
        case .scalar(_, _, let line), .sequence(_, let line), .mapping(_, let line): line
        }
    }
}

/// Why a text is not a configuration document, with the line (1-based) where it was found.
struct YAMLSyntaxError: Error, CustomStringConvertible {
    let line: Int
    let reason: String
    var description: String { "line \(line): \(reason)" }
}

extension YAMLNode {
    /// Lists and mappings nested deeper than this are refused: the configuration's deepest key is
    /// three levels down, and a bounded depth keeps every walk over the tree off the stack's end.
    static let maxDepth = 32

    /// The single document in `text`, or nil for an empty one. Aliases (`*name`) are refused:
    /// a configuration has no use for them and they let a few bytes expand into a huge tree.
    /// A key given twice in one mapping keeps its later value (as PyYAML and Yams do, so that a
    /// line appended to the file overrides); `repeated` names each such key and line.
    static func compose(_ text: String) throws(YAMLSyntaxError) -> (document: YAMLNode?, repeated: [(key: String, line: Int)]) {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) != 0 else { throw YAMLSyntaxError(line: 1, reason: "out of memory") }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(YAMLSyntaxError) -> (document: YAMLNode?, repeated: [(key: String, line: Int)]) in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var composer = Composer()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) != 0 else { throw Self.parserError(parser) }
                defer { yaml_event_delete(&event) }
                if try composer.take(event) { return (composer.document, composer.repeated) }
            }
        }
    }

    private static func parserError(_ p: yaml_parser_t) -> YAMLSyntaxError {
        let problem = p.problem.map { String(cString: $0) } ?? "not valid YAML"
        var reason = "\(problem) (column \(p.problem_mark.column + 1))"
        // libyaml's context: what it was reading, and where that began (an unclosed list's '[').
        if let context = p.context.map({ String(cString: $0) }) {
            reason += ", \(context) that starts on line \(p.context_mark.line + 1)"
        }
        return YAMLSyntaxError(line: Int(p.problem_mark.line) + 1, reason: reason)
    }

    /// Builds the tree from events without recursion: open lists and mappings wait on a stack.
    private struct Composer {
        enum Open {
            case sequence([YAMLNode], line: Int)
            case mapping([(key: String, value: YAMLNode)], pendingKey: String?, line: Int)
        }
        var stack: [Open] = []
        var document: YAMLNode?
        var documents = 0
        var repeated: [(key: String, line: Int)] = []

        /// Takes one event; true when the stream has ended.
        mutating func take(_ event: yaml_event_t) throws(YAMLSyntaxError) -> Bool {
            let line = Int(event.start_mark.line) + 1
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return true
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 { throw YAMLSyntaxError(line: line, reason: "a second document ('---'); the file holds one") }
            case YAML_ALIAS_EVENT:
                throw YAMLSyntaxError(line: line, reason: "aliases ('*name') are not supported; write the value out")
            case YAML_SCALAR_EVENT:
                let s = event.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: s.value, count: Int(s.length)), as: UTF8.self)
                let plain = s.style == YAML_PLAIN_SCALAR_STYLE && s.tag == nil
                try add(.scalar(text, plain: plain, line: line), line: line)
            case YAML_SEQUENCE_START_EVENT:
                try push(.sequence([], line: line), line: line)
            case YAML_MAPPING_START_EVENT:
                try push(.mapping([], pendingKey: nil, line: line), line: line)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let top = stack.popLast() else { break }
                switch top {
                case .sequence(let items, let l): try add(.sequence(items, line: l), line: line)
                case .mapping(let entries, _, let l): try add(.mapping(entries, line: l), line: line)
                }
            default:
                break
            }
            return false
        }

        private mutating func push(_ open: Open, line: Int) throws(YAMLSyntaxError) {
            if case .mapping(_, nil, _)? = stack.last {
                throw YAMLSyntaxError(line: line, reason: "a key must be a plain name, not a list or a mapping")
            }
            guard stack.count < YAMLNode.maxDepth else {
                throw YAMLSyntaxError(line: line, reason: "lists and mappings nested more than \(YAMLNode.maxDepth) deep")
            }
            stack.append(open)
        }

        private mutating func add(_ node: YAMLNode, line: Int) throws(YAMLSyntaxError) {
            guard let top = stack.popLast() else {
                document = node
                return
            }
            switch top {
            case .sequence(var items, let l):
                items.append(node)
                stack.append(.sequence(items, line: l))
            case .mapping(var entries, nil, let l):
                guard case .scalar(let key, _, _) = node else {
                    throw YAMLSyntaxError(line: line, reason: "a key must be a plain name, not a list or a mapping")
                }
                if let earlier = entries.firstIndex(where: { $0.key == key }) {
                    entries.remove(at: earlier)
                    repeated.append((key, line))
                }
                stack.append(.mapping(entries, pendingKey: key, line: l))
            case .mapping(var entries, let key?, let l):
                entries.append((key, node))
                stack.append(.mapping(entries, pendingKey: nil, line: l))
            }
        }
    }
}

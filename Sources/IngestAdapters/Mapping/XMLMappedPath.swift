/// A mapped XML path (FEEDS.md §4, §12), parsed once: where it starts (the
/// record, an ancestor `k` levels up, or the document's root), the element
/// steps down from there, each with an optional predicate, and an optional
/// attribute at the end.
///
/// `Prices/Price`, `@id`, `NAME[1]`, `PRICE[@TYPE="retail"]`,
/// `GTINDATA[not(ENDDT)]/GTIN`, `../../AMPPS/AMPP/NM`, `../@id`,
/// `/Root/@date`, `/Root/Header/Date`.
///
/// The parse streams, so a path outside the record reads what came before
/// the record (the nearest such element counts); a path inside reads the
/// record's own elements (the first that matches counts).
struct XMLMappedPath: Sendable, Hashable {
    enum Anchor: Sendable, Hashable {
        case record
        /// `k` levels above the record (1: its parent).
        case up(Int)
        /// The document's root element, which must have this name.
        case root(String)
    }

    enum Predicate: Sendable, Hashable {
        /// `[N]`: the Nth of its name among its siblings, 1-based.
        case position(Int)
        case hasAttribute(String)
        case lacksAttribute(String)
        case attributeEquals(String, String)
        case hasChild(String)
        case lacksChild(String)
        case childEquals(String, String)

        /// Decided by a child, so only when the step's element closes.
        var needsChildren: Bool {
            switch self {
            case .hasChild, .lacksChild, .childEquals: true
            default: false
            }
        }
    }

    struct Step: Sendable, Hashable {
        var name: String
        var predicate: Predicate?
    }

    /// The path as the mapping writes it: the key of its value.
    let mapped: String
    let anchor: Anchor
    let steps: [Step]
    let attribute: String?

    var isOutside: Bool {
        if case .record = anchor { return false }
        return true
    }

    /// Why `text` is not a path this reader can follow, or nil.
    static func problem(_ text: String) -> String? {
        do { _ = try parse(text) } catch { return error.message }
        return nil
    }

    struct Invalid: Error {
        var message: String
    }

    static func parse(_ text: String) throws(Invalid) -> XMLMappedPath {
        var parts = try split(text)
        let anchor: Anchor
        if text.hasPrefix("/") {
            parts.removeFirst()
            guard let root = parts.first, !root.isEmpty, !root.hasPrefix("@"), !root.contains("[") else {
                throw Invalid(message: "an absolute path starts with the root element's name, as /Root/Child or /Root/@attribute")
            }
            parts.removeFirst()
            anchor = .root(root)
        } else {
            var up = 0
            while parts.first == ".." {
                parts.removeFirst()
                up += 1
            }
            anchor = up == 0 ? .record : .up(up)
        }
        var attribute: String?
        if let last = parts.last, last.hasPrefix("@") {
            attribute = String(last.dropFirst())
            parts.removeLast()
            guard let name = attribute, Self.isName(name) else { throw Invalid(message: "'\(last)' is not an attribute name") }
        }
        var steps: [Step] = []
        for part in parts {
            steps.append(try step(part))
        }
        if steps.isEmpty, attribute == nil {
            throw Invalid(message: anchor == .record
                          ? "names the record itself, which holds elements, not a value"
                          : "names an element that holds the record, not a value; add a child or an @attribute")
        }
        return XMLMappedPath(mapped: text, anchor: anchor, steps: steps, attribute: attribute)
    }

    /// Splits on `/` outside predicates' brackets and quotes.
    private static func split(_ text: String) throws(Invalid) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var quoted = false
        for character in text {
            if character == "\"" { quoted.toggle() }
            if !quoted {
                if character == "[" { depth += 1 }
                if character == "]" { depth -= 1 }
            }
            if character == "/", depth == 0, !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        guard depth == 0, !quoted else { throw Invalid(message: "a bracket or quote is not closed") }
        parts.append(current)
        if text.hasPrefix("/") { parts[0] = "/" }
        for part in parts.dropFirst(text.hasPrefix("/") ? 1 : 0) where part.isEmpty {
            throw Invalid(message: "has an empty step (// or a trailing /)")
        }
        return parts
    }

    private static func step(_ part: String) throws(Invalid) -> Step {
        guard part != ".." else { throw Invalid(message: "'..' may only begin a path") }
        guard let open = part.firstIndex(of: "[") else {
            guard isName(part) else { throw Invalid(message: "'\(part)' is not an element name") }
            return Step(name: part, predicate: nil)
        }
        let name = String(part[..<open])
        guard isName(name), part.hasSuffix("]") else { throw Invalid(message: "'\(part)' is not a step such as NAME or NAME[1]") }
        let inside = String(part[part.index(after: open)..<part.index(before: part.endIndex)]).trimmed
        return Step(name: name, predicate: try predicate(inside, in: part))
    }

    private static func predicate(_ text: String, in part: String) throws(Invalid) -> Predicate {
        let unsupported = Invalid(message: "'[\(text)]' in '\(part)' is not a predicate this reader knows: [N], [@a], [not(@a)], [@a=\"v\"], [c], [not(c)], [c=\"v\"]")
        if let number = Int(text) {
            guard number >= 1 else { throw Invalid(message: "positions count from 1, not \(number)") }
            return .position(number)
        }
        if text.hasPrefix("not("), text.hasSuffix(")") {
            let inner = String(text.dropFirst(4).dropLast()).trimmed
            if inner.hasPrefix("@"), isName(String(inner.dropFirst())) { return .lacksAttribute(String(inner.dropFirst())) }
            if isName(inner) { return .lacksChild(inner) }
            throw unsupported
        }
        if let equals = text.firstIndex(of: "=") {
            let left = String(text[..<equals]).trimmed
            let right = String(text[text.index(after: equals)...]).trimmed
            guard right.count >= 2, right.hasPrefix("\""), right.hasSuffix("\"") || (right.hasPrefix("'") && right.hasSuffix("'")) else { throw unsupported }
            let value = String(right.dropFirst().dropLast())
            if left.hasPrefix("@"), isName(String(left.dropFirst())) { return .attributeEquals(String(left.dropFirst()), value) }
            if isName(left) { return .childEquals(left, value) }
            throw unsupported
        }
        if text.hasPrefix("@"), isName(String(text.dropFirst())) { return .hasAttribute(String(text.dropFirst())) }
        if isName(text) { return .hasChild(text) }
        throw unsupported
    }

    /// An XML name as mappings use it: letters, digits, `_`, `-`, `.`, a prefix's `:`.
    static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.:".unicodeScalars.contains($0) }
    }
}

/// Mapped XML fields that lie outside the record element (FEEDS.md §4): real
/// lists put the product's name on the product and the price on each of its
/// packs. A mapping reaches them with a path up from the record
/// (`../../NameDe`, `../@id`, `../../Maker/@name`) or from the document's
/// root (`/Preparations/@ReleaseDate`).
///
/// The parse streams, so an outer value must come before the record in the
/// document: an ancestor's attributes, or a child of an ancestor that closes
/// before the record starts. Each open element outside a record keeps only
/// the values some mapping path asks of it, and they go when it closes, so
/// one product's name never reaches the next product's packs.
struct XMLOuterFields {
    /// Which open element a path starts from.
    enum Anchor: Hashable {
        /// `k` levels above the record (1: its parent).
        case up(Int)
        /// The element at this path from the root (`["Preparations"]`).
        case absolute([String])
    }

    /// One mapped path: its anchor and what it reads there: `@attr` (the
    /// anchor's attribute), `child` (a child's text) or `child/@attr`.
    struct Path {
        var mapped: String
        var anchor: Anchor
        var key: String
    }

    /// An element open outside the record, with what was asked of it.
    private struct Frame {
        var name: String
        var values: [String: String] = [:]
    }

    let paths: [Path]
    /// Attribute names asked of anchors themselves; child names asked of them.
    private let anchorAttributes: Set<String>
    private let childNames: Set<String>
    private var frames: [Frame] = []
    /// The depth (frame count) of the child whose text is being captured for its parent frame.
    private var capturingDepth: Int?

    /// nil for a path inside the record (or one that reads nothing).
    /// `/A/B/C` reads C's text under B, `/A/B/C/@x` C's attribute, `/A/@x`
    /// the root's; `../X`, `../@x`, `../X/@y` and `../../X` count up from the record.
    static func parse(_ mapped: String) -> Path? {
        var parts = mapped.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let anchor: Anchor
        if mapped.hasPrefix("/") {
            parts.removeFirst()
            let attribute = parts.last?.hasPrefix("@") == true ? parts.removeLast() : nil
            guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != ".." && !$0.hasPrefix("@") }) else { return nil }
            if parts.count == 1 {
                guard let attribute else { return nil } // the root's own text: not a field
                return Path(mapped: mapped, anchor: .absolute(parts), key: attribute)
            }
            let child = parts.removeLast()
            anchor = .absolute(parts)
            parts = [child] + (attribute.map { [$0] } ?? [])
        } else {
            var up = 0
            while parts.first == ".." { parts.removeFirst(); up += 1 }
            guard up > 0 else { return nil }
            anchor = .up(up)
        }
        guard !parts.isEmpty, parts.count <= 2, !parts[0].isEmpty else { return nil }
        if parts.count == 2, parts[0].hasPrefix("@") || !parts[1].hasPrefix("@") { return nil }
        return Path(mapped: mapped, anchor: anchor, key: parts.joined(separator: "/"))
    }

    init(mappedPaths: some Sequence<String>) {
        paths = mappedPaths.compactMap(Self.parse)
        anchorAttributes = Set(paths.filter { $0.key.hasPrefix("@") }.map { String($0.key.dropFirst()) })
        childNames = Set(paths.filter { !$0.key.hasPrefix("@") }.map { String($0.key.split(separator: "/")[0]) })
    }

    var isEmpty: Bool { paths.isEmpty }

    /// An element opens outside any record. Returns true when its text is wanted (call `text` at its end).
    mutating func open(_ name: String, attributes: XMLAttributes) -> Bool {
        var frame = Frame(name: name)
        for attribute in anchorAttributes {
            if let value = attributes.value(named: attribute) { frame.values["@" + attribute] = value }
        }
        if childNames.contains(name), !frames.isEmpty {
            for path in paths where path.key.hasPrefix(name + "/@") {
                let attribute = String(path.key.dropFirst(name.count + 2))
                if let value = attributes.value(named: attribute) { frames[frames.count - 1].values[path.key] = value }
            }
        }
        frames.append(frame)
        // Elements inside a captured child are part of its text.
        guard capturingDepth == nil, childNames.contains(name), frames.count >= 2 else { return false }
        capturingDepth = frames.count
        return true
    }

    /// Whether the element about to close is the one whose text is captured.
    var closingCapturedElement: Bool { capturingDepth == frames.count }

    /// A record opens inside the element whose text was being captured: that text is not a field.
    mutating func cancelCapture() { capturingDepth = nil }

    /// The element that opened last outside a record closes; `text` is its
    /// text when `open` asked for it.
    mutating func close(text: String?) {
        if capturingDepth == frames.count { capturingDepth = nil }
        guard let frame = frames.popLast() else { return }
        if let text, !frames.isEmpty, childNames.contains(frame.name) {
            frames[frames.count - 1].values[frame.name] = text
        }
    }

    /// Every outer path's value for a record now open (its ancestors are the open frames).
    func values() -> [(mapped: String, value: String)] {
        paths.compactMap { path in
            let frame: Frame?
            switch path.anchor {
            case .up(let levels):
                frame = levels <= frames.count ? frames[frames.count - levels] : nil
            case .absolute(let names):
                frame = names.count <= frames.count && frames.prefix(names.count).map(\.name) == names ? frames[names.count - 1] : nil
            }
            return frame?.values[path.key].map { (path.mapped, $0) }
        }
    }
}

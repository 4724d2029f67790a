/// Finds the root element of an XML document in a file's first bytes, so
/// adapters can claim XML files by root element and namespace rather than by
/// file name.
enum XMLSniffer {
    /// The root element's qualified name and the sample text of its start tag.
    static func rootElement(_ sample: ArraySlice<UInt8>) -> (name: String, startTag: String)? {
        var index = sample.startIndex
        let end = sample.endIndex
        func starts(_ text: String) -> Bool { sample[index...].starts(with: Array(text.utf8)) }
        while index < end {
            let byte = sample[index]
            if byte == 32 || byte == 9 || byte == 10 || byte == 13 { index += 1; continue }
            guard byte == UInt8(ascii: "<") else { return nil }
            if starts("<!DOCTYPE") {
                // A DOCTYPE is skipped (the parser refuses it later, naming it
                // unsafe): up to `]>` when it has an internal subset.
                let rest = sample[index...]
                let bracket = rest.firstIndex(of: UInt8(ascii: "["))
                let close = rest.firstIndex(of: UInt8(ascii: ">"))
                if let bracket, let close, bracket < close {
                    guard let end = firstRange(of: Array("]>".utf8), in: rest) ?? firstRange(of: Array("] >".utf8), in: rest) else { return nil }
                    index = end
                } else {
                    guard let close else { return nil }
                    index = close + 1
                }
                continue
            }
            if starts("<?") || starts("<!--") || starts("<!") {
                let terminator: [UInt8] = starts("<!--") ? Array("-->".utf8) : (starts("<?") ? Array("?>".utf8) : Array(">".utf8))
                guard let close = firstRange(of: terminator, in: sample[index...]) else { return nil }
                index = close
                continue
            }
            let tagEnd = sample[index...].firstIndex(of: UInt8(ascii: ">")) ?? end
            let tag = String(decoding: sample[index..<tagEnd], as: UTF8.self)
            let name = tag.dropFirst().prefix { !$0.isWhitespace && $0 != "/" && $0 != ">" }
            return (String(name), tag)
        }
        return nil
    }

    /// The index just past the first occurrence of `needle`.
    private static func firstRange(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index <= haystack.endIndex - needle.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index + needle.count }
            index += 1
        }
        return nil
    }

    /// Whether the root element is `localName` in `namespace` (declared as the
    /// default namespace or through its prefix on the root's start tag).
    static func rootIs(_ localName: String, namespace: String?, in sample: ArraySlice<UInt8>) -> Bool {
        guard let root = rootElement(sample) else { return false }
        let parts = root.name.split(separator: ":", maxSplits: 1)
        let local = parts.count == 2 ? String(parts[1]) : root.name
        guard local == localName else { return false }
        guard let namespace else { return true }
        let declaration = parts.count == 2 ? "xmlns:\(parts[0])=" : "xmlns="
        return root.startTag.contains("\(declaration)\"\(namespace)\"") || root.startTag.contains("\(declaration)'\(namespace)'")
    }
}

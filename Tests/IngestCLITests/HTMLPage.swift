import CLibXML2
import Foundation

/// An HTML page read by libxml2's HTML parser, as a browser would be lenient
/// with it, and asked questions by XPath: how the tests hold the HTML run
/// report's figures to the run's.
final class HTMLPage {
    private let document: htmlDocPtr

    init(path: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let options = Int32(HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue)
        let parsed = bytes.withUnsafeBytes { buffer in
            htmlReadMemory(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), path, "UTF-8", options)
        }
        guard let parsed else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path]) }
        document = parsed
    }

    deinit { xmlFreeDoc(document) }

    /// The text of every node the expression selects, in document order.
    func texts(_ xpath: String) -> [String] {
        guard let context = xmlXPathNewContext(document) else { return [] }
        defer { xmlXPathFreeContext(context) }
        guard let result = xmlXPathEvalExpression(xpath, context) else { return [] }
        defer { xmlXPathFreeObject(result) }
        guard let nodes = result.pointee.nodesetval, nodes.pointee.nodeNr > 0 else { return [] }
        return (0..<Int(nodes.pointee.nodeNr)).map { index in
            guard let content = xmlNodeGetContent(nodes.pointee.nodeTab[index]) else { return "" }
            defer { free(content) }
            return String(cString: content).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// The one text the expression selects, or nil when it selects none or several.
    func text(_ xpath: String) -> String? {
        let found = texts(xpath)
        return found.count == 1 ? found[0] : nil
    }

    /// A `data-figure` value as a number.
    func figure(_ name: String) -> Int? {
        text("//*[@data-figure='\(name)']").flatMap { Int($0) }
    }
}

import Foundation
import TOMLKit

/// One mapping file's TOML, read strictly: each value of the shape asked
/// for, or a `MappingError` naming the file and the key. The loader and the
/// layouts (`MappingLayoutRules`) read through it.
struct MappingTable {
    let file: String
    let table: TOMLTable

    func fail(_ key: String?, _ message: String) -> MappingError { MappingError(file: file, key: key, message: message) }

    func section(_ name: String) throws(MappingError) -> TOMLTable? {
        guard let value = table[name] else { return nil }
        guard let section = value.table else { throw fail(name, "must be a table") }
        return section
    }

    func string(_ section: String, _ key: String) throws(MappingError) -> String? {
        guard let value = try self.section(section)?[key] else { return nil }
        guard let text = value.string else { throw fail("\(section).\(key)", "must be a string") }
        return text
    }

    func bool(_ section: String, _ key: String) throws(MappingError) -> Bool? {
        guard let value = try self.section(section)?[key] else { return nil }
        guard let flag = value.bool else { throw fail("\(section).\(key)", "must be true or false") }
        return flag
    }

    func singleByte(_ section: String, _ key: String, default fallback: String) throws(MappingError) -> UInt8 {
        let text = try string(section, key) ?? fallback
        let resolved = text == "\\t" ? "\t" : text
        guard resolved.utf8.count == 1, let byte = resolved.utf8.first, byte != 10, byte != 13 else {
            throw fail("\(section).\(key)", "must be exactly one ASCII character other than a line break, not '\(text)'")
        }
        return byte
    }

    func regex(_ section: String, _ key: String) throws(MappingError) -> String? {
        guard let pattern = try string(section, key) else { return nil }
        guard let regex = try? NSRegularExpression(pattern: pattern), regex.numberOfCaptureGroups >= 1 else {
            throw fail("\(section).\(key)", "must be a regular expression with one capture group, not '\(pattern)'")
        }
        return pattern
    }

    func strings(_ value: TOMLValueConvertible, key: String) throws(MappingError) -> [String] {
        guard let array = value.array else { throw fail(key, "must be an array of strings") }
        var texts: [String] = []
        for element in array {
            guard let text = element.string else { throw fail(key, "must be an array of strings") }
            texts.append(text.trimmed)
        }
        return texts
    }
}

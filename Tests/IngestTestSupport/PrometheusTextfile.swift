import Foundation

/// A Prometheus textfile read the way node_exporter's textfile collector
/// reads one: HELP and TYPE comments, then `series value` lines. Tests look
/// values up by series (`name{label="v"}`) and compare numbers, not the
/// spelling of a number (`1` and `1.0` are the same sample).
public struct PrometheusTextfile {
    public struct Malformed: Error, CustomStringConvertible {
        public let line: String
        public let why: String
        public var description: String { "\(why): \(line)" }
    }

    public let samples: [String: Double]
    public let types: [String: String]

    public init(_ text: String) throws {
        var samples: [String: Double] = [:]
        var types: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if line.hasPrefix("# TYPE ") {
                guard parts.count == 4 else { throw Malformed(line: String(line), why: "a TYPE line has a name and a type") }
                types[String(parts[2])] = String(parts[3])
            } else if line.hasPrefix("# HELP ") {
                continue
            } else {
                guard parts.count == 2 else { throw Malformed(line: String(line), why: "a sample is a series and a value") }
                let series = String(parts[0])
                guard Self.family(of: String(series.prefix { $0 != "{" }), in: types) != nil else {
                    throw Malformed(line: String(line), why: "no TYPE before the series")
                }
                guard let value = Double(parts[1]) else { throw Malformed(line: String(line), why: "not a number") }
                guard samples.updateValue(value, forKey: series) == nil else { throw Malformed(line: String(line), why: "a series twice") }
            }
        }
        self.samples = samples
        self.types = types
    }

    /// The family a sample's name belongs to: itself, or for a histogram's
    /// or summary's `_bucket`, `_sum` and `_count` lines the family they extend.
    static func family(of name: String, in types: [String: String]) -> String? {
        if types[name] != nil { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if ["histogram", "summary"].contains(types[base]) { return base }
        }
        return nil
    }

    public init(contentsOfFile path: String) throws {
        try self.init(String(contentsOfFile: path, encoding: .utf8))
    }

    public subscript(series: String) -> Double? { samples[series] }
}

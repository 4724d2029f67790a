import IngestCore

/// The pharmacy registry (FEEDS.md §5): UTF-8 CSV with a header naming the
/// columns, in any order. It supplies names, addresses and coordinates to
/// the pharmacies the stock feeds bring.
public struct PharmacyRegistryAdapter: FeedAdapter {
    public let name = "pharmacy-registry"
    public let summary = "Pharmacy registry (FEEDS.md §5), UTF-8 CSV; recognised by a header with id, name, latitude and longitude"
    public let kind = FeedKind.pharmacyRegistry

    static let required = ["id", "name", "latitude", "longitude"]
    static let optional = ["chain_id", "region", "address", "phone", "open_hours"]
    /// Folded, not rejected, when they hold a line break (FEEDS.md §12).
    static let freeText: Set<String> = ["region", "address", "phone", "open_hours"]

    public init() {}

    /// By the header, quotes honoured (R's `write.csv` and pandas' `QUOTE_ALL` quote every name).
    public func recognises(_ file: FeedFile) -> Bool {
        guard let header = DelimitedFileReader(delimiter: UInt8(ascii: ",")).firstRow(of: file.sampleWithoutBOM) else { return false }
        let columns = Set(header.map { String(decoding: $0, as: UTF8.self).trimmed.lowercased() })
        return Self.required.allSatisfy(columns.contains) && columns.contains("region")
    }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<PharmacyRecord>) -> NoHeader? {
        var columns: [String: Int] = [:]
        var seen = Set<String>()
        do {
            try DelimitedFileReader(delimiter: UInt8(ascii: ",")).read(file) { row in
                if row.line == 1 || columns.isEmpty {
                    for (index, field) in row.fields.enumerated() {
                        columns[String(decoding: field, as: UTF8.self).trimmed.lowercased()] = index
                    }
                    if let missing = Self.required.first(where: { columns[$0] == nil }) {
                        throw FeedFailure(reason: .badHeader, message: "registry header lacks column '\(missing)'", line: row.line)
                    }
                    return
                }
                readRow(row, columns: columns, seen: &seen, output: &output)
            }
        } catch let failure as FeedFailure {
            output.failure = failure
        } catch {
            output.failure = FeedFailure(reason: .unreadable, message: "\(error)")
        }
        return nil
    }

    private func readRow(_ row: DelimitedFileReader.Row, columns: [String: Int], seen: inout Set<String>, output: inout FeedOutput<PharmacyRecord>) {
        var values: [String: String] = [:]
        var undecodable: String?
        for (column, index) in columns where index < row.fields.count {
            guard let text = UTF8Text.string(row.field(index)) else {
                if undecodable == nil { undecodable = column }
                continue
            }
            values[column] = text.trimmed
        }
        let id = values["id"] ?? ""
        if let undecodable {
            // The id still names the row when it is the readable part.
            return output.reject(line: row.line, key: id, reason: .badEncoding, message: "\(undecodable) is not UTF-8 text", field: undecodable)
        }
        guard row.fields.count == columns.count else {
            return output.reject(line: row.line, key: id, reason: .badFieldCount, message: "row has \(row.fields.count) fields, the header has \(columns.count)", field: "row")
        }
        Self.read(values, line: row.line, seen: &seen, into: &output)
    }

    /// One row's values (trimmed, by the field names of FEEDS.md §5) as a
    /// record or a reject: the rules every registry follows, this CSV or a
    /// mapped one (`kind = "registry"`).
    static func read(_ values: [String: String], line: Int, seen: inout Set<String>, into output: inout FeedOutput<PharmacyRecord>) {
        var values = values
        let id = values["id"] ?? ""
        guard ReferenceTextHygiene.check(&values, order: Self.required + Self.optional, freeText: Self.freeText, line: line, key: id, into: &output) else { return }
        func reject(_ reason: RejectReason, _ field: String, _ message: String) {
            output.reject(line: line, key: id, reason: reason, message: message, field: field)
        }
        guard !id.isEmpty else { return reject(.missingField, "id", "id is empty") }
        guard let name = values["name"], !name.isEmpty else { return reject(.missingField, "name", "name is empty") }
        guard let latitude = Self.coordinate(values["latitude"]), (-90...90).contains(latitude) else {
            return reject(.badCoordinates, "latitude", "latitude '\(values["latitude"] ?? "")' is not a number in [-90, 90]")
        }
        guard let longitude = Self.coordinate(values["longitude"]), (-180...180).contains(longitude) else {
            return reject(.badCoordinates, "longitude", "longitude '\(values["longitude"] ?? "")' is not a number in [-180, 180]")
        }
        guard seen.insert(id).inserted else {
            return reject(.duplicateKey, "id", "pharmacy \(id) appears earlier in the registry")
        }
        func optional(_ key: String) -> String? { values[key].flatMap { $0.isEmpty ? nil : $0 } }
        output.accept(PharmacyRecord(
            id: id, name: name, chainID: optional("chain_id"), region: optional("region"),
            address: optional("address"), phone: optional("phone"), openHours: optional("open_hours"),
            latitude: latitude, longitude: longitude, line: line))
    }

    /// Decimal-point degrees; nothing Double would also read (`nan`, `1e3`, hex).
    static func coordinate(_ text: String?) -> Double? {
        guard let text, ExactDecimal.parse(text, decimalSeparator: ".", maxFractionDigits: 12, allowNegative: true) != nil else { return nil }
        return Double(text)
    }
}

import Foundation

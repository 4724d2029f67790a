import Foundation
import IngestCore

extension MedicinePackage: LocatedRecord {
    public var recordKey: String { packageCode }
}

/// The medicines agency's register (FEEDS.md §11): `;`-separated UTF-8 CSV
/// with a header naming its columns, one row per authorised package, keyed
/// by package code. It gives the items of the stock feeds their leaflet URL,
/// and their ATC code and active substance where the feed has none. Its date
/// is in its name (`medicine_register_2011-05-01.csv`).
public struct MedicineRegisterAdapter: FeedAdapter {
    public let name = "medicine-register"
    public let summary = "Medicine register (FEEDS.md §11), CSV package_code;…;prescription; recognised by its header"
    public let kind = FeedKind.medicineRegister

    static let columns = ["package_code", "name", "form", "strength", "pack_size", "atc", "active_substance",
                          "leaflet_url", "spc_url", "prescription"]
    static let required = ["package_code", "name", "leaflet_url", "prescription"]

    public init() {}

    public func recognises(_ file: FeedFile) -> Bool {
        guard let header = DelimitedFileReader(delimiter: UInt8(ascii: ";")).firstRow(of: file.sampleWithoutBOM) else { return false }
        let names = Set(header.map { String(decoding: $0, as: UTF8.self).trimmed.lowercased() })
        return Self.required.allSatisfy(names.contains)
    }

    /// The date in the file's name, `YYYY-MM-DD`; nil when it has none.
    public static func validFrom(fileName: String) -> String? {
        guard let range = fileName.range(of: #"[0-9]{4}-[0-9]{2}-[0-9]{2}"#, options: .regularExpression) else { return nil }
        return String(fileName[range])
    }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<MedicinePackage>) -> NoHeader? {
        var columns: [String: Int] = [:]
        var headerCount = 0
        var seen = Set<String>()
        do {
            try DelimitedFileReader(delimiter: UInt8(ascii: ";")).read(file) { row in
                guard headerCount > 0 else {
                    for (index, field) in row.fields.enumerated() {
                        columns[String(decoding: field, as: UTF8.self).trimmed.lowercased()] = index
                    }
                    headerCount = row.count
                    if let missing = Self.required.first(where: { columns[$0] == nil }) {
                        throw FeedFailure(reason: .badHeader, message: "register header lacks column '\(missing)'", line: row.line)
                    }
                    return
                }
                read(row, columns: columns, headerCount: headerCount, seen: &seen, output: &output)
            }
        } catch let failure as FeedFailure {
            output.failure = failure
        } catch {
            output.failure = FeedFailure(reason: .unreadable, message: "\(error)")
        }
        return nil
    }

    private func read(_ row: DelimitedFileReader.Row, columns: [String: Int], headerCount: Int, seen: inout Set<String>,
                      output: inout FeedOutput<MedicinePackage>) {
        var values: [String: String] = [:]
        var undecodable: String?
        for (column, index) in columns where index < row.count {
            guard let text = UTF8Text.string(row.field(index)) else {
                if undecodable == nil { undecodable = column }
                continue
            }
            values[column] = text.trimmed
        }
        let code = values["package_code"] ?? ""
        guard row.count == headerCount else {
            return output.reject(line: row.line, key: code, reason: .badFieldCount, message: "row has \(row.count) fields, the header has \(headerCount)", field: "row")
        }
        if let undecodable {
            return output.reject(line: row.line, key: code, reason: .badEncoding, message: "\(undecodable) is not UTF-8 text", field: undecodable)
        }
        Self.read(values, line: row.line, seen: &seen, into: &output)
    }

    /// One row's values (trimmed, by the field names of FEEDS.md §11) as a
    /// record or a reject: the rules every register follows, this CSV or a
    /// mapped one (`kind = "register"`).
    static func read(_ values: [String: String], line: Int, seen: inout Set<String>, into output: inout FeedOutput<MedicinePackage>) {
        var values = values
        let code = values["package_code"] ?? ""
        guard ReferenceTextHygiene.check(&values, order: Self.columns, freeText: [], line: line, key: code, into: &output) else { return }
        func reject(_ reason: RejectReason, _ field: String, _ message: String) {
            output.reject(line: line, key: code, reason: reason, message: message, field: field)
        }
        guard PackageCode.isValid(code) else {
            return reject(.badPackageCode, "package_code", "package code '\(code)' is not 7 digits with a valid check digit")
        }
        guard let name = values["name"], !name.isEmpty else { return reject(.missingField, "name", "name is empty") }
        // Left out of a mapped register it is unknown (NULL, FEEDS.md §12.1); written, it must be one of the two.
        let prescription = values["prescription"]
        if let prescription, !["Rx", "OTC"].contains(prescription) {
            return reject(.badPrescription, "prescription", "prescription '\(prescription)' is not Rx or OTC")
        }
        func optional(_ key: String) -> String? { values[key].flatMap { $0.isEmpty ? nil : $0 } }
        for key in ["leaflet_url", "spc_url"] {
            if let url = optional(key), !WebURL.isValid(url) {
                return reject(.badURL, key, "\(key) '\(url)' is not an http or https URL")
            }
        }
        let atc = optional("atc")?.uppercasedCode
        if let atc, ATCAdapter.level(of: atc) == nil {
            return reject(.badATCCode, "atc", "'\(atc)' is not an ATC code")
        }
        guard seen.insert(code).inserted else {
            return reject(.duplicateKey, "package_code", "package code \(code) appears earlier in the register")
        }
        output.accept(MedicinePackage(
            packageCode: code, name: name, form: optional("form"), strength: optional("strength"), packSize: optional("pack_size"),
            atc: atc, activeSubstance: optional("active_substance"), leafletURL: optional("leaflet_url"), spcURL: optional("spc_url"),
            prescription: prescription, line: line))
    }
}

extension RejectReason {
    public static let badPrescription = RejectReason(rawValue: "bad_prescription")
    /// A URL whose scheme is not http or https (`file:`, `javascript:`).
    public static let badURL = RejectReason(rawValue: "bad_url")
}

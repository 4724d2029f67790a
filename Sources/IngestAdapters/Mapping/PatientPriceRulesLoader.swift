import Foundation
import IngestCore
import TOMLKit

/// Reads `mappings/patient_price_rules.toml` (FEEDS.md §7). Fees are strings
/// in the file so they reach `ExactDecimal` without passing through a binary
/// float; any problem is a `MappingError` naming the key.
public enum PatientPriceRulesLoader {
    public static let fileName = "patient_price_rules.toml"

    /// nil when the file does not exist.
    public static func load(directory: String) throws(MappingError) -> PatientPriceRules? {
        let path = "\(directory)/\(fileName)"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        func fail(_ key: String?, _ message: String) -> MappingError { MappingError(file: fileName, key: key, message: message) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw fail(nil, "cannot be read as UTF-8 text") }
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch { throw fail(nil, "not valid TOML: \(error)") }
        for key in table.keys where key != "period" { throw fail(key, "unknown key; the file holds [[period]] tables") }
        guard let periods = table["period"]?.array, !periods.isEmpty else { throw fail("period", "missing: at least one [[period]]") }
        var result: [PatientPriceRules.Period] = []
        for (index, value) in periods.enumerated() {
            let key = "period[\(index)]"
            guard let period = value.table else { throw fail(key, "must be a table") }
            for inner in period.keys where !["from", "fee"].contains(inner) { throw fail("\(key).\(inner)", "unknown key") }
            guard let from = period["from"]?.string, MappedDateFormat("yyyy-MM-dd")?.parse(from, in: ExportTimestamp.tallinn) != nil else {
                throw fail("\(key).from", "must be a date string yyyy-MM-dd")
            }
            guard let fees = period["fee"]?.table else { throw fail("\(key).fee", "missing: fees per rate") }
            var cents: [Int: Int64] = [:]
            for rate in PatientPriceRules.rates {
                guard let text = fees[String(rate)]?.string else {
                    throw fail("\(key).fee.\(rate)", "missing: the fee for \(rate) % as a string such as \"1.27\"")
                }
                guard let amount = ExactDecimal.parse(text, decimalSeparator: ".", maxFractionDigits: 2), let value = try? Money.cents(amount, in: .eur) else {
                    throw fail("\(key).fee.\(rate)", "'\(text)' is not a euro amount")
                }
                cents[rate] = value
            }
            for extra in fees.keys where !PatientPriceRules.rates.map(String.init).contains(extra) {
                throw fail("\(key).fee.\(extra)", "not a reimbursement rate (50, 75, 90, 100)")
            }
            result.append(.init(from: from, fees: cents))
        }
        guard Set(result.map(\.from)).count == result.count else { throw fail("period", "two periods start on the same date") }
        return PatientPriceRules(periods: result)
    }
}

/// Builds RAX stock exports line by line, with a correct trailer unless a
/// test asks for a broken one.
public struct RAXFeedBuilder {
    public var version: String
    public var pharmacyID: String
    public var pharmacyName: String
    public var exportedAt: String
    public var currency: String
    public var items: [String] = []
    /// Overrides the computed trailer (`T;count;sum`); nil writes the right one.
    public var trailer: String?
    public var includeTrailer = true
    public var lineEnding = "\r\n"

    public init(version: String = "3.2", pharmacyID: String = "5060", pharmacyName: String = "AASA APTEEK",
                exportedAt: String = "20101230T2305", currency: String = "EUR") {
        self.version = version
        self.pharmacyID = pharmacyID
        self.pharmacyName = pharmacyName
        self.exportedAt = exportedAt
        self.currency = currency
    }

    /// Adds an item in this builder's version's field layout.
    public mutating func item(
        _ aptcode: String, package: String = "", gtin: String = "", name: String = "ITEM",
        producer: String = "PRODUCER", atc: String = "", substance: String = "", price: String = "1,00", quantity: String = "1"
    ) {
        if version == "3.1" {
            items.append(["I", aptcode, gtin, name, producer, atc, substance, price, quantity].joined(separator: ";"))
        } else {
            items.append(["I", aptcode, package, gtin, name, producer, atc, substance, price, quantity].joined(separator: ";"))
        }
    }

    /// Adds a raw line, counted in the trailer if it is an `I` line.
    public mutating func raw(_ line: String) { items.append(line) }

    public var text: String {
        var lines = ["H;RAX;\(version);\(pharmacyID);\(pharmacyName);\(exportedAt);\(currency)"]
        lines += items
        if includeTrailer {
            if let trailer {
                lines.append(trailer)
            } else {
                let itemLines = items.filter { $0.hasPrefix("I;") }
                let sum = itemLines.compactMap { Int($0.split(separator: ";", omittingEmptySubsequences: false).last!) }.reduce(0, +)
                lines.append("T;\(itemLines.count);\(sum)")
            }
        }
        return lines.joined(separator: lineEnding) + lineEnding
    }

    public var bytes: [UInt8] { CP1257Encoder.encode(text) }
}

extension RAXFeedBuilder {
    /// `YYYYMMDDTHHMM` for a moment `daysAgo` days before now (UTC digits;
    /// close enough for tests of age limits measured in days).
    public static func exportTime(daysAgo: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Europe/Tallinn")
        formatter.dateFormat = "yyyyMMdd'T'HHmm"
        return formatter.string(from: Date().addingTimeInterval(-daysAgo * 86_400))
    }
}

import Foundation

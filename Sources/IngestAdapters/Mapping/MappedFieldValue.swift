import Foundation
import IngestCore

/// Whether a value a mapping writes itself (`[constants]`, the targets of
/// `[values]`) could ever pass its field's rules: a translation to `Rx ` or
/// a constant package code with a wrong check digit would reject every
/// record that uses it, night after night, so it is a mapping error found
/// before any feed is read (FEEDS.md §12.1).
enum MappedFieldValue {
    /// How a value as written is looked up in `[values]`: trimmed, compared ignoring case.
    static func lookupKey(_ text: String) -> String { text.trimmed.lowercased() }

    /// Why `text` cannot be a value of `field`, nil when it can.
    static func problem(_ text: String, of field: CanonicalField, decimalSeparator: UInt8,
                        dateFormat: MappedDateFormat, timeZone: TimeZone) -> String? {
        if let hygiene = TextHygiene.problem(in: text, longest: TextHygiene.longestName) { return "has \(hygiene)" }
        switch field {
        case .prescription:
            return ["Rx", "OTC"].contains(text) ? nil : "is not Rx or OTC"
        case .packageCode:
            return PackageCode.isValid(text) ? nil : "is not 7 digits with a valid check digit"
        case .gtin:
            if case .failure = GTIN.normalize(text) { return "is not a GTIN of 8, 12, 13 or 14 digits with a valid check digit" }
            return nil
        case .atc:
            return ATCAdapter.level(of: text.uppercasedCode) == nil ? "is not an ATC code" : nil
        case .price:
            return PriceText.amount(text, decimalSeparator: decimalSeparator, thousands: nil, currency: nil) == nil
                ? "is not a decimal number with '\(Character(Unicode.Scalar(decimalSeparator)))' as separator" : nil
        case .quantity:
            return text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) && Int64(text) != nil ? nil : "is not a non-negative integer"
        case .latitude:
            return PharmacyRegistryAdapter.coordinate(text).map { (-90...90).contains($0) } == true ? nil : "is not a number in [-90, 90]"
        case .longitude:
            return PharmacyRegistryAdapter.coordinate(text).map { (-180...180).contains($0) } == true ? nil : "is not a number in [-180, 180]"
        case .leafletURL, .spcURL:
            return WebURL.isValid(text) ? nil : "is not an http or https URL"
        case .exportedAt:
            return dateFormat.parse(text, in: timeZone) == nil ? "does not match the date format \(dateFormat.pattern)" : nil
        case .currency:
            return ISO4217.code(text) == nil && Currency(code: text) == nil ? "is not an ISO 4217 code" : nil
        case .vatRate:
            return ExactDecimal.parse(text, decimalSeparator: ".", maxFractionDigits: 4) == nil ? "is not a decimal-point percentage" : nil
        case .pharmacyID, .pharmacyName, .aptcode, .name, .producer, .activeSubstance, .id, .chainID, .region, .address, .phone,
             .openHours, .form, .strength, .packSize:
            return nil
        }
    }
}
